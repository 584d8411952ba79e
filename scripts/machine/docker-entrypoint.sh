#!/bin/sh
set -e
# Run "node ARGS" when the first argument is an option or not a command (the official image's behaviour).
if [ "${1#-}" != "$1" ] || [ -z "$(command -v "${1}")" ] || { [ -f "${1}" ] && ! [ -x "${1}" ]; }; then set -- node "$@"; fi
exec "$@"
