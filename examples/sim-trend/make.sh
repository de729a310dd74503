#!/bin/sh
# Makes this example's history: the study measured on the simulated engine 1.0, then upgraded to
# 1.1 and 1.2 (the version it declares and reports, and the flags that make each release faster),
# each upgrade measuring again what it made stale. Run from the repository's root after
# `cargo build`; it replaces runs/ and leaves study.toml as it was (release 1.2).
set -eu
here=$(dirname "$0")
perflab=${PERFLAB:-target/debug/perflab}
spec="$here/study.toml"
keep=$(mktemp)
cp "$spec" "$keep"
trap 'cp "$keep" "$spec"; rm -f "$keep"' EXIT
rm -rf "$here/runs"
release() {
    # release VERSION FLAGS: the engine as that release is, declared and reported.
    sed -e "s/^version = .*/version = \"$1\"/" \
        -e "s/PERFLAB_SIM_VERSION = \"[^\"]*\"/PERFLAB_SIM_VERSION = \"$1\"/" \
        -e "s/--sim-startup-seconds 0.1 .*\"$/--sim-startup-seconds 0.1 $2\"/" "$keep" >"$spec"
}
release 1.0 "--sim-decode-ms 8 --sim-batch-penalty 0.5 --sim-weights-gb 55.8 --sim-fp8-kv-overhead 1.5"
"$perflab" run "$here"
release 1.1 "--sim-decode-ms 6 --sim-batch-penalty 0.4 --sim-weights-gb 55.8 --sim-fp8-kv-overhead 1.0"
"$perflab" run "$here" --rerun-stale
release 1.2 "--sim-decode-ms 4 --sim-batch-penalty 0.2 --sim-weights-gb 55.8 --sim-fp8-kv-overhead 0.2"
"$perflab" run "$here" --rerun-stale
