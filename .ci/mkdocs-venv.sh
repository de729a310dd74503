#!/usr/bin/env bash
# Installs mkdocs-material with the Markdown extensions GPUStack builds its pages with into a
# virtual environment outside the clone (~/.cache/perflab/mkdocs, kept between runs), and prints
# its path. tests/it/dropin.rs builds the mkdocs flavour with it (PERFLAB_MKDOCS_VENV).
set -euo pipefail
venv="${PERFLAB_MKDOCS_VENV:-$HOME/.cache/perflab/mkdocs}"
if [ ! -x "$venv/bin/mkdocs" ]; then
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check \
    'mkdocs==1.6.*' 'mkdocs-material==9.8.*' 'pymdown-extensions' >&2
fi
"$venv/bin/mkdocs" --version >&2
echo "$venv"
