#!/usr/bin/env bash
# Runs the Node-sensitive tests on another Node line: `.ci/node-version.sh 22 [test paths...]`.
# The binary comes from the `node` package of the npm registry (the registry is all a machine here reaches).
# A clean copy of the checkout gets its own `npm ci`, so better-sqlite3 is compiled for that Node's ABI
# against the headers the package ships, and the copy proves the lock installs on that line too.
set -euo pipefail
major="$1"
shift
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/racewire-node${major}.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# The node package installs its platform binary from a preinstall script, which npm runs only when allowed.
mkdir -p "$work/toolchain"
printf '{"name":"toolchain","private":true,"allowScripts":{"node":true}}\n' >"$work/toolchain/package.json"
npm install --prefix "$work/toolchain" --no-audit --no-fund --loglevel=error "node@$major" >/dev/null
bin="$work/toolchain/node_modules/.bin"
# The headers native modules compile against (node-gyp's --nodedir), shipped beside the binary.
headers="$(find "$work/toolchain/node_modules" -path '*/include/node/node_version.h' | head -n1)"
dist="${headers%/include/node/node_version.h}"
export PATH="$bin:$PATH"
echo "node-version: $(node --version) from the npm registry"
[ "$(node -p 'process.versions.node.split(".")[0]')" = "$major" ]

mkdir "$work/repo"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) | tar -xf - -C "$work/repo"
cd "$work/repo"
npm_config_nodedir="$dist" npm ci --no-audit --no-fund --loglevel=error
npx vitest run "$@"
