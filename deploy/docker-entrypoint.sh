#!/bin/sh
# The container's entry: `lectern serve` by default, any other lectern command when given one
# (`docker run ... lectern-image keys create --name ci`). Container defaults, each overridable
# with its environment variable (or lectern.yaml through LECTERN_CONFIG; see README "Deploying"):
#   LECTERN_DATA_DIR=/data     the volume
#   LECTERN_HOST=0.0.0.0       reachable through the published port
#   LECTERN_SUPERVISE=false    a staged restore exits with 75 and the restart policy applies it
#   LECTERN_LOG_FORMAT=json    for the container runtime's log collector
# exec: the server becomes the process the runtime signals (tini, PID 1, forwards SIGTERM). The
# release's bin/lectern runs it on the Node runtime bundled beside it.
set -eu

: "${LECTERN_DATA_DIR:=/data}"
: "${LECTERN_HOST:=0.0.0.0}"
: "${LECTERN_SUPERVISE:=false}"
: "${LECTERN_LOG_FORMAT:=json}"
export LECTERN_DATA_DIR LECTERN_HOST LECTERN_SUPERVISE LECTERN_LOG_FORMAT

app_dir=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)

if [ "$#" -eq 0 ]; then
  set -- serve
fi
exec "$app_dir/bin/lectern" "$@"
