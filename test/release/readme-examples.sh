#!/usr/bin/env bash
# Runs shell examples of README's "Install on a host without internet" as written, in a
# throw-away root with loopback only (test/release/throwaway-root.sh), from a folder holding what
# `npm run release` wrote. systemctl there is test/release/systemctl-standin, since no systemd
# runs in the root. Each example line is echoed before it runs; the first failure stops the run.
# Usage: readme-examples.sh <release folder> <scratch dir> <file of example lines>
set -euo pipefail
release=$1
scratch=$2
examples=$3
# shellcheck source=test/release/throwaway-root.sh
. "$(dirname "$0")/throwaway-root.sh"

mkdir "$root/tmp/release"
cp "$release"/* "$root/tmp/release/"
cp "$examples" "$root/tmp/examples.sh"
install -m 755 "$(dirname "$0")/systemctl-standin" "$root/usr/local/sbin/systemctl"
command -v sudo >/dev/null || fail "sudo is missing (scripts/system-packages.sh installs it)"

in_root env -C /tmp/release PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin bash -euo pipefail -x /tmp/examples.sh
ok "the examples ran"
