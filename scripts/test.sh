#!/bin/sh
# `npm test`: the typecheck (tsc --noEmit) and the linter (biome check .) beside Vitest rather than before it,
# since each uses one core for 15-25 s (more on a busy machine) while Vitest's start and its last long suite
# leave a core idle. Their output is held until Vitest ends, so it is not lost among the test output, and each
# fails `npm test` as it did when they ran first. Arguments go to `vitest run` (`npm test -- test/watch`).
set -u
out="$(mktemp -d "${TMPDIR:-/tmp}/racewire-test.XXXXXX")"
trap 'rm -rf "$out"' EXIT

tsc --noEmit >"$out/typecheck" 2>&1 &
typecheck=$!
biome check . >"$out/lint" 2>&1 &
lint=$!

vitest run "$@"
tests=$?

status=0
report() { # name, its exit code
  if [ "$2" -ne 0 ]; then
    echo "npm test: $1 failed (exit $2):"
    cat "$out/$1"
    status=1
  else
    echo "npm test: $1 passed"
  fi
}
wait "$typecheck"
report typecheck $?
wait "$lint"
report lint $?
[ "$tests" -ne 0 ] && status=1
exit "$status"
