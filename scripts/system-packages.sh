#!/usr/bin/env bash
# The Debian packages the test suite drives for real, installed when missing (run by `npm test`
# before the tests, and so by .ci/run). Each is named with what needs it; nothing is installed
# when all are present. Without root, it prints the apt-get command to run and stops.
set -euo pipefail

# command  package    what needs it
needs=(
  "git       git        clones of git sources"
  "chromium  chromium   websites that render with JavaScript, and the dashboard's browser tests"
  "nginx     nginx      the reverse-proxy tests (TLS in front of lectern serve)"
  "openssl   openssl    the reverse-proxy tests' certificates"
  "lintian   lintian    the release tests: Debian's checker for the .deb"
  "systemd-analyze systemd the unit file check (systemd-analyze verify)"
  "ip        iproute2   the release tests: loopback in a network namespace"
  "unshare   util-linux the release tests: namespaces with no network"
  "g++       g++        native modules built for the bundled Node (node-gyp)"
  "make      make       native modules built for the bundled Node (node-gyp)"
  "python3   python3    native modules built for the bundled Node (node-gyp)"
  "strip     binutils   the release strips the native modules it builds"
  "sudo      sudo       the README's install examples, run as written by the release tests"
  "/usr/lib/postgresql/*/bin/postgres postgresql the PostgreSQL schema and store tests (a cluster of their own on loopback)"
  "sshd      openssh-server the git-over-SSH tests (sshd on a loopback port, git-shell as the login's command)"
)

missing=()
for line in "${needs[@]}"; do
  read -r command package why <<<"$line"
  # A command with a slash is a path, or a pattern where the version is part of it (PostgreSQL's server).
  if [[ "$command" == */* ]]; then
    compgen -G "$command" >/dev/null && continue
  elif command -v "$command" >/dev/null 2>&1 || [ -x "/usr/sbin/$command" ] || [ -x "/usr/bin/$command" ]; then
    continue
  fi
  echo "missing: $command (Debian package $package) for $why" >&2
  missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
  echo "Install them first: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "Installing: ${missing[*]}" >&2
apt-get update -q
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
