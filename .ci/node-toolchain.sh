#!/usr/bin/env bash
# Installs Node <major> into <dir> from the `node` package of the npm registry (the registry is all these
# machines reach), and writes <dir>/env to source: that Node first on PATH, and the headers it ships as
# npm's nodedir, so native modules (better-sqlite3) compile for its ABI. `.ci/node-toolchain.sh 22 /tmp/n22`
set -euo pipefail
major="$1"
dir="$2"
mkdir -p "$dir"
# The package installs its platform binary from a preinstall script, which npm runs only when allowed.
printf '{"name":"toolchain","private":true,"allowScripts":{"node":true}}\n' >"$dir/package.json"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "node@$major" >/dev/null
headers="$(find "$dir/node_modules" -path '*/include/node/node_version.h' | head -n1)"
cat >"$dir/env" <<ENV
export PATH="$dir/node_modules/.bin:\$PATH"
export npm_config_nodedir="${headers%/include/node/node_version.h}"
ENV
