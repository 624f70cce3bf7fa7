#!/usr/bin/env bash
# Installs the Debian package into a throw-away root and runs it there, as an operator would on
# an offline host: `apt-get install ./lectern_<v>_amd64.deb`, the service's command as the
# lectern user, a CLI command against the service's data, then remove (data kept) and purge
# (data gone).
#
# The root is a throw-away copy of this host with loopback only (test/release/throwaway-root.sh).
# Prints `ok: <what>` per check; exits non-zero at the first failure.
# Usage: deb-install.sh <package.deb> <scratch dir>
set -euo pipefail
deb=$1
scratch=$2
# shellcheck source=test/release/throwaway-root.sh
. "$(dirname "$0")/throwaway-root.sh"
cp "$deb" "$root/tmp/lectern.deb"

DEBIAN_FRONTEND=noninteractive in_root apt-get install -y /tmp/lectern.deb >"$scratch/apt-install.log" 2>&1 || { cat "$scratch/apt-install.log"; fail "apt-get install"; }
in_root dpkg-query -W -f '${Status}\n' lectern | grep -qx 'install ok installed' || fail "dpkg does not list lectern as installed"
ok "apt-get install ./lectern.deb offline"

[ "$(in_root readlink /usr/bin/lectern)" = /opt/lectern/bin/lectern ] || fail "/usr/bin/lectern is not the link to /opt/lectern/bin/lectern"
[ -x "$root/opt/lectern/node/bin/node" ] || fail "no bundled runtime"
ok "/usr/bin/lectern links to /opt/lectern/bin/lectern"

IFS=: read -r _ _ _ _ _ home shell < <(in_root getent passwd lectern) || fail "no lectern user"
[ "$home" = /var/lib/lectern ] || fail "the lectern user's home is $home"
case "$shell" in */nologin | */false) ;; *) fail "the lectern user has the login shell $shell" ;; esac
[ "$(in_root stat -c '%U:%G %a' /var/lib/lectern)" = 'lectern:lectern 700' ] || fail "/var/lib/lectern is $(in_root stat -c '%U:%G %a' /var/lib/lectern)"
[ "$(in_root stat -c '%U:%G %a' /etc/lectern/lectern.env)" = 'root:lectern 640' ] || fail "/etc/lectern/lectern.env is $(in_root stat -c '%U:%G %a' /etc/lectern/lectern.env)"
in_root dpkg-query --control-show lectern conffiles | grep -qx /etc/lectern/lectern.yaml || fail "lectern.yaml is not a conffile"
ok "the lectern system user, /var/lib/lectern (0700), lectern.env (0640 root:lectern), lectern.yaml a conffile"

[ "$(in_root readlink /etc/systemd/system/multi-user.target.wants/lectern.service)" = /lib/systemd/system/lectern.service ] || fail "lectern.service is not enabled"
in_root systemd-analyze verify /lib/systemd/system/lectern.service >"$scratch/verify.log" 2>&1 || { cat "$scratch/verify.log"; fail "systemd-analyze verify"; }
[ ! -s "$scratch/verify.log" ] || { cat "$scratch/verify.log"; fail "systemd-analyze verify printed warnings"; }
exec_start=$(sed -n 's/^ExecStart=//p' "$root/lib/systemd/system/lectern.service")
[ "$exec_start" = '/opt/lectern/bin/lectern serve --no-supervise --config /etc/lectern/lectern.yaml' ] || fail "ExecStart is $exec_start"
ok "lectern.service enabled, verified, and starting /opt/lectern/bin/lectern"

# The service's command line as systemd runs it: its user, its working directory, its environment
# file. chroot and setpriv exec (runuser would stay between as the parent), so $server is the service.
chroot "$root" setpriv --reuid=lectern --regid=lectern --init-groups -- sh -c 'cd /var/lib/lectern && set -a && . /etc/lectern/lectern.env && exec /opt/lectern/bin/lectern serve --no-supervise --config /etc/lectern/lectern.yaml' >"$scratch/serve.log" 2>&1 &
server=$!
for _ in $(seq 1 600); do
  [ "$(http_status http://127.0.0.1:3000/api/ready)" = 200 ] && break
  kill -0 "$server" 2>/dev/null || { cat "$scratch/serve.log"; fail "the service exited"; }
  sleep 0.1
done
[ "$(http_status http://127.0.0.1:3000/api/ready)" = 200 ] || { cat "$scratch/serve.log"; fail "the service never became ready"; }
[ -f "$root/var/lib/lectern/lectern.db" ] || fail "the service's database is not in /var/lib/lectern"
ok "the service answers /api/ready on 127.0.0.1:3000 with its data in /var/lib/lectern"

key=$(in_root runuser -u lectern -- lectern keys create --name ops --json | in_root /opt/lectern/node/bin/node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).key))')
[ "$(http_status 'http://127.0.0.1:3000/api/v2/libs/search?libraryName=nothing' "$key")" = 404 ] || fail "the service refused the key the CLI created"
[ "$(http_status 'http://127.0.0.1:3000/api/v2/libs/search?libraryName=nothing' lct_00000000000000000000000000000000)" = 401 ] || fail "a wrong key was not refused"
source=$(in_root runuser -u lectern -- lectern config get dataDir --json)
case "$source" in *'/etc/lectern/lectern.yaml'*) ;; *) fail "dataDir does not come from /etc/lectern/lectern.yaml: $source" ;; esac
ok "sudo -u lectern lectern keys create makes a key the service accepts (dataDir from /etc/lectern/lectern.yaml)"

# From any folder, with no flag and no file naming it: the package's data directory and its server.
seen=$(in_root runuser -u lectern -- env LECTERN_CONFIG=/dev/null sh -c 'cd /tmp && lectern status --json' | in_root /opt/lectern/node/bin/node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => { const j = JSON.parse(s); console.log([j.dataDir, j.server.url, j.server.ready].join(" ")) })')
[ "$seen" = '/var/lib/lectern http://127.0.0.1:3000 true' ] || fail "lectern status from /tmp does not see the service: $seen"
ok "lectern status, run from /tmp with no settings, sees /var/lib/lectern and its ready server"

refused=$(in_root env COLUMNS=1000 lectern keys create --name oops 2>&1) && fail "root's keys create on the service's data was not refused"
case "$refused" in *'sudo -u lectern lectern keys create'*) ;; *) fail "root's refusal does not say what to run: $refused" ;; esac
[ -z "$(in_root find /var/lib/lectern -uid 0)" ] || fail "root left files in /var/lib/lectern: $(in_root find /var/lib/lectern -uid 0)"
ok "root is refused on the service's data directory and told to run sudo -u lectern lectern ..."

kill -TERM "$server"
status=0
wait "$server" || status=$?
[ "$status" = 0 ] || { cat "$scratch/serve.log"; fail "the service exited with $status on SIGTERM"; }
ok "the service stops cleanly on SIGTERM"

DEBIAN_FRONTEND=noninteractive in_root apt-get remove -y lectern >"$scratch/apt-remove.log" 2>&1 || { cat "$scratch/apt-remove.log"; fail "apt-get remove"; }
[ ! -e "$root/opt/lectern" ] && [ ! -e "$root/usr/bin/lectern" ] || fail "the program is still there after remove"
[ -f "$root/var/lib/lectern/lectern.db" ] && [ -f "$root/etc/lectern/lectern.yaml" ] && [ -f "$root/etc/lectern/lectern.env" ] || fail "remove lost the data or the configuration"
ok "apt-get remove takes the program and keeps the data and configuration"

DEBIAN_FRONTEND=noninteractive in_root apt-get purge -y lectern >"$scratch/apt-purge.log" 2>&1 || { cat "$scratch/apt-purge.log"; fail "apt-get purge"; }
[ ! -e "$root/var/lib/lectern" ] && [ ! -e "$root/etc/lectern" ] || fail "purge left $(ls -d "$root/var/lib/lectern" "$root/etc/lectern" 2>/dev/null)"
[ ! -e "$root/etc/systemd/system/multi-user.target.wants/lectern.service" ] || fail "purge left the unit enabled"
ok "apt-get purge removes the data and configuration"
