#!/usr/bin/env bash
# Installs and starts what the tests need beyond Node and npm, when it is missing: Docker engine (Debian's docker.io),
# docker compose v2, kubectl, promtool and prometheus (extracted from Debian trixie's packages: bookworm's are too old or
# missing), debootstrap, Chromium and uBlock Origin's filter lists (webext-ublock-origin-chromium), docker-registry and
# skopeo (the release suite), wrk (the web benchmarks), and the locally built base image
# localhost/ssr-telemetry/node:24-bookworm-slim (nothing can be pulled from a registry here; its own name, so the
# official node:24-bookworm-slim is never shadowed).
# Idempotent and quick when everything is there. Needs root (or passwordless sudo) for what it installs.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export DEBIAN_FRONTEND=noninteractive
export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"   # dockerd and debootstrap live in sbin
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo -n "$@"; fi; }

need=()
command -v dockerd >/dev/null || need+=(docker.io)
command -v debootstrap >/dev/null || need+=(debootstrap)
[ -x /usr/bin/chromium ] || need+=(chromium)
# uBlock Origin's filter lists (EasyList, EasyPrivacy, uBO's own) for the ad-blocker suite and `npm run check:blockers`
# (packages/test-kit/src/filter-lists.ts): Debian's package, never a list server. Bookworm's and trixie's are the same
# build (1.67.0+dfsg-1, lists of 2025-10-31).
[ -f /usr/share/chromium/extensions/ublock-origin/assets/assets.json ] || need+=(webext-ublock-origin-chromium)
# The release suite pushes to a registry on loopback and reads it back (e2e/containers/release.test.ts).
[ -x /usr/bin/docker-registry ] || need+=(docker-registry)
command -v skopeo >/dev/null || need+=(skopeo)
# The web service's benchmarks drive load with wrk (services/web/bench/wrk.ts).
command -v wrk >/dev/null || need+=(wrk)
if ((${#need[@]})); then
  echo "setup: apt-get install ${need[*]}" >&2
  as_root apt-get update -qq
  as_root apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# Binaries bookworm lacks (or has too old), extracted from Debian trixie's packages without touching the system's
# apt configuration: Go programs that need only libc >= 2.34 (bookworm has 2.36).
trixie_install() { # trixie_install PACKAGE PATH-IN-PACKAGE DEST-DIR
  local T=${XDG_CACHE_HOME:-$HOME/.cache}/apt-trixie
  mkdir -p "$T/lists/partial" "$T/cache" "$T/sp" "$T/x"
  printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' >"$T/sp/trixie.sources"
  local A=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$T/sp" -o "Dir::State::Lists=$T/lists" -o "Dir::Cache=$T/cache" -o Dir::State::status=/var/lib/dpkg/status)
  [ -n "$(ls "$T/lists" 2>/dev/null | grep -v partial)" ] || apt-get "${A[@]}" update -qq 2>/dev/null
  (cd "$T" && apt-get "${A[@]}" download "$1" 2>/dev/null)
  for f in "$T/${1%%/*}"_*.deb; do dpkg-deb -x "$f" "$T/x"; done
  as_root install -D -m755 -t "$3" "$T/x/$2"
}

if ! docker compose version >/dev/null 2>&1; then
  echo "setup: docker compose v2 plugin (from Debian trixie's docker-compose package)" >&2
  trixie_install docker-compose usr/libexec/docker/cli-plugins/docker-compose /usr/local/lib/docker/cli-plugins
fi

# kubectl (its built-in kustomize renders the manifests offline; no cluster is used). Preinstalled on CI images.
if ! command -v kubectl >/dev/null; then
  echo "setup: kubectl (from Debian trixie's kubectl package)" >&2
  trixie_install kubectl/trixie usr/bin/kubectl /usr/local/bin
fi

# promtool checks the alert rules' PromQL and runs their unit tests (deploy/test).
if ! command -v promtool >/dev/null; then
  echo "setup: promtool (from Debian trixie's promtool package)" >&2
  trixie_install promtool usr/bin/promtool /usr/local/bin
fi

# prometheus: the e2e suite runs Debian's server against both services (e2e/observability/prometheus.test.ts).
if ! command -v prometheus >/dev/null; then
  echo "setup: prometheus (from Debian trixie's prometheus package)" >&2
  trixie_install prometheus usr/bin/prometheus /usr/local/bin
fi

if ! docker info >/dev/null 2>&1; then
  echo "setup: starting dockerd" >&2
  as_root setsid dockerd >/tmp/dockerd.log 2>&1 </dev/null &
  for _ in $(seq 120); do docker info >/dev/null 2>&1 && break; sleep 0.5; done
  docker info >/dev/null 2>&1 || { echo "setup: dockerd did not start; see /tmp/dockerd.log" >&2; exit 1; }
fi

# Everything that builds here passes it as NODE_IMAGE (docs/deploy.md, "Images"). A machine set up before it had its
# own name has node:24-bookworm-slim from this script instead: it is built again under the new name (the old tag is
# left alone; `docker rmi node:24-bookworm-slim` removes it).
if ! docker image inspect localhost/ssr-telemetry/node:24-bookworm-slim >/dev/null 2>&1; then
  echo "setup: building base image localhost/ssr-telemetry/node:24-bookworm-slim (about a minute)" >&2
  as_root "$root/scripts/machine/make-base-image.sh"
fi
