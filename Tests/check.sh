# check DESCRIPTION COMMAND...: runs COMMAND, counts it in passed or failed,
# and on a failure prints DESCRIPTION and the end of what COMMAND said.
# Sourced by the shell checks (Tests/Install/run.sh, Tests/Package/run.sh).
passed=0 failed=0
check() {
  local description="$1"; shift
  if output="$("$@" 2>&1)"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAILED: $description" >&2
    [ -n "$output" ] && echo "$output" | tail -20 | sed 's/^/  /' >&2
  fi
}
