# Sourced by .ci/run: the one line its end prints about the tests that need an outside tool.
# `skipped` holds each group of tool tests left out by name, as "NAME (why)"; `tests_done` is
# set once the test command has returned, passed or failed.
tool_tests_line() {
  local left_out=""
  if [ "${#skipped[@]}" -gt 0 ]; then
    left_out="$(printf '%s; ' "${skipped[@]}")"
    left_out="${left_out%; }"
  fi
  if [ -z "${tests_done:-}" ]; then
    echo "== tool tests: none ran, the script stopped before the tests ended${left_out:+; left out by name: $left_out}"
  elif [ -n "$left_out" ]; then
    echo "== tool tests: every one ran but those left out by name: $left_out"
  else
    echo "== tool tests: every one ran, none was left out"
  fi
}
