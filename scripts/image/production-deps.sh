#!/bin/sh
# Run in an image build stage at /app (the lockfile and every workspace manifest copied in): installs the production
# dependencies of the named workspaces and removes what no running server reads — packages outside the production
# closure `npm ls --omit=dev` reports (npm also installs other workspaces' production packages that these have only as
# devDependencies), source maps, type declarations, and the other workspaces' folders and links.
#   production-deps.sh @app/telemetry-relay @app/service-kit @app/telemetry-rules
set -eu
[ "$#" -gt 0 ] || { echo "production-deps.sh: name the workspaces to keep" >&2; exit 64; }
workspaces=""
for name in "$@"; do workspaces="$workspaces --workspace $name"; done

# shellcheck disable=SC2086 # one word per flag
npm ci --omit=dev $workspaces --no-audit --no-fund --loglevel=error
rm -rf /root/.npm
# shellcheck disable=SC2086
npm ls --all --parseable --omit=dev $workspaces | sed -n 's|^/app/node_modules/||p' | grep -v /node_modules/ \
  | sort -u >/tmp/keep
test -s /tmp/keep
printf '%s\n' "$@" >>/tmp/keep

for dir in node_modules/[!@.]* node_modules/@*/*; do
  grep -qxF "${dir#node_modules/}" /tmp/keep || rm -rf "$dir"
done
# The other workspaces: npm ci needed their manifests, the image needs nothing of them.
for manifest in packages/*/package.json services/*/package.json e2e/package.json; do
  name=$(node -p "require('./$manifest').name")
  grep -qxF "$name" /tmp/keep || rm -rf "$(dirname "$manifest")"
done
rm -f /tmp/keep
find node_modules -mindepth 1 -maxdepth 1 -name '@*' -type d -empty -delete
find node_modules -type f \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \) -delete
