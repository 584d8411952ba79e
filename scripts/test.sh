#!/usr/bin/env bash
# The test command (`npm test`): makes sure the machine has what the suites need (Docker engine, compose v2,
# Chromium, the local base image), then runs every check through Vitest: lint, type-check, manifests, unit,
# integration, browser and container suites. The output ends with "N passed, N failed".
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/machine/setup.sh
# No container registry here: Ryuk (Testcontainers' reaper image) cannot be pulled, so it is off and CI removes
# leftovers by label; /.dockerenv on these hosts would make Testcontainers look for a gateway it does not need.
# 127.0.0.1, not localhost: Chromium tries ::1 first, where another suite's server may hold the same port number as
# a container's IPv4-only mapped port (every page of stack.test.ts answered 404 once in a full run).
export TESTCONTAINERS_RYUK_DISABLED=${TESTCONTAINERS_RYUK_DISABLED:-true}
export TESTCONTAINERS_HOST_OVERRIDE=${TESTCONTAINERS_HOST_OVERRIDE:-127.0.0.1}
export CHROMIUM_PATH=${CHROMIUM_PATH:-/usr/bin/chromium}
exec vitest run "$@"
