# Sourced by the release tests' scripts (run under `unshare --mount --net --pid --fork`): makes
# $root a throw-away copy of this host, an overlay of / whose writes go to a tmpfs under
# $scratch, with its own /dev, /proc, /run and /tmp, loopback up and no other network. Every
# process started in it ends with the script (its PID namespace). The host's node is hidden in
# it, so only a release's bundled runtime can run Lectern. Defines in_root, ok, fail and
# http_status.
set -euo pipefail

root=$scratch/root
mount -t tmpfs -o size=6g tmpfs "$scratch"
mkdir "$scratch/upper" "$scratch/work" "$root"
mount -t overlay overlay -o "lowerdir=/,upperdir=$scratch/upper,workdir=$scratch/work" "$root"
mount --rbind /dev "$root/dev"
mount -t proc proc "$root/proc"
# A fresh /run: no systemd runs in this root, as on a host where a package is installed before boot.
mount -t tmpfs tmpfs "$root/run"
mount -t tmpfs tmpfs "$root/tmp"
ip link set lo up
rm -f "$root/usr/bin/node" "$root/usr/local/bin/node"

in_root() { chroot "$root" "$@"; }
ok() { echo "ok: $*"; }
fail() { echo "FAILED: $*" >&2; exit 1; }
# HTTP from inside the root, through Lectern's own runtime (the root has no other node).
http_status() { in_root /opt/lectern/node/bin/node -e 'fetch(process.argv[1], { headers: process.argv[2] ? { authorization: `Bearer ${process.argv[2]}` } : {} }).then((r) => console.log(r.status), () => console.log(0))' "$@"; }

! in_root sh -c 'command -v node' >/dev/null || fail "the root still has a node on its PATH"
ok "no node in the root but Lectern's"
