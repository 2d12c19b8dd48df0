#!/usr/bin/env bash
# Runs vitest on the Node first on PATH (see node-toolchain.sh) in a clean copy of the checkout with its own
# `npm ci`: native modules are built for that Node, and the copy proves the lock installs on it too.
# `.ci/node-tests.sh [test paths...]`
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/racewire-node$(node -p 'process.versions.node.split(".")[0]').XXXXXX")"
trap 'rm -rf "$work"' EXIT
echo "node-tests: $(node --version)"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) | tar -xf - -C "$work"
cd "$work"
npm ci --no-audit --no-fund --loglevel=error
npx vitest run "$@"
