/**
 * Runs one bash command inside a sandbox of its own, started by `unshare --user --map-root-user
 * --net --mount` (see examples.ts). Plain JavaScript because it runs under `node` directly, in
 * the new namespaces:
 * - a network of its own (loopback only), so fixed ports such as 3000 or 8080 are free and
 *   nothing can reach out;
 * - /etc and /var/lib overlaid with directories of the test, /mnt replaced by one, so paths such as
 *   /etc/lectern/lectern.yaml, /var/lib/lectern or /mnt/backups exist, and /etc/hosts names
 *   hosts such as lectern.internal;
 * - bridges: a TCP port inside relayed to a Unix socket outside, where the test serves a
 *   stand-in (S3, Ollama, Confluence...);
 * - background commands (a `lectern serve` that an example talks to), stopped at the end.
 * With `stop`, the command is sent a signal once a URL answers or once it printed something,
 * the way a person stops `lectern serve` or `lectern jobs --watch`.
 *
 * Usage: node sandbox.mjs <spec.json>; exits with the command's exit code (128 + n for signal n).
 */
import { execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'

const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'))

execFileSync('ip', ['link', 'set', 'lo', 'up'])
for (const o of spec.overlays) {
  // /mnt may hold mounts of its own, which an overlay cannot sit on: it is replaced instead.
  if (o.replace) execFileSync('mount', ['--bind', o.upper, o.target])
  else execFileSync('mount', ['-t', 'overlay', 'overlay', '-o', `lowerdir=${o.target},upperdir=${o.upper},workdir=${o.work}`, o.target])
}

const servers = await Promise.all(
  spec.bridges.map(
    (b) =>
      new Promise((resolve) => {
        const server = net.createServer((inbound) => {
          const outbound = net.connect(b.socket)
          inbound.pipe(outbound).pipe(inbound)
          inbound.on('error', () => outbound.destroy())
          outbound.on('error', () => inbound.destroy())
        })
        server.listen(b.port, '127.0.0.1', () => resolve(server))
      }),
  ),
)

const env = { ...spec.env }
// bash runs a lone command (with its variable assignments) by exec, so a signal reaches lectern itself.
const shell = (command, stdio) => spawn('bash', ['-c', command], { cwd: spec.cwd, env, stdio, detached: true })

async function answers(url) {
  try {
    return (await fetch(url)).ok
  } catch {
    return false
  }
}

async function until(what, check, ms = 60_000) {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`sandbox: timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

const background = []
for (const b of spec.background) {
  const child = shell(b.command, ['ignore', 'ignore', 'inherit'])
  background.push(child)
  await until(b.readyUrl, () => answers(b.readyUrl))
}

const child = shell(spec.command, ['inherit', 'pipe', 'pipe'])
let stopping = false
const stop = () => {
  if (stopping) return
  stopping = true
  process.kill(child.pid, spec.stop.signal)
}
let printed = false
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk)
  printed = true
})
child.stderr.on('data', (chunk) => process.stderr.write(chunk))
if (spec.stop?.url) until(spec.stop.url, () => answers(spec.stop.url)).then(stop, (err) => {
  process.stderr.write(`${err.message}\n`)
  stop()
})
if (spec.stop?.output) until('output', () => printed).then(stop)

const code = await new Promise((resolve) => {
  child.on('close', (status, signal) => resolve(status ?? 128 + os.constants.signals[signal]))
})
for (const b of background) {
  try {
    process.kill(-b.pid, 'SIGTERM')
  } catch {
    // already ended
  }
}
for (const s of servers) s.close()
process.exit(code)
