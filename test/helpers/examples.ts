/**
 * Runs a documented command line exactly as written, the way a reader pastes it into bash: with
 * `lectern` on the PATH (a shim for the real `node bin/run.js`, as `npm link` makes), in a
 * sandbox of its own (sandbox.mjs: own network, /etc and /var/lib overlaid, /mnt replaced), so examples
 * may name fixed ports, hosts such as lectern.internal and system paths. Stand-ins the test runs
 * (S3, Ollama, Confluence...) are reached through bridges: a port inside the sandbox relayed to
 * the stand-in's port outside.
 */
import fs from 'node:fs/promises'
import net from 'node:net'
import path from 'node:path'
import { execa } from 'execa'
import { PROJECT_ROOT, type CliResult } from './cli.js'

/** The directories of one sandbox, as the test sees them. */
export interface Sandbox {
  root: string
  /** The working directory and $HOME of the command. */
  home: string
  /** What the command sees at /etc and /var/lib, on top of the real ones, and at /mnt instead of it. */
  etc: string
  varLib: string
  mnt: string
}

const OVERLAID = { etc: '/etc', varLib: '/var/lib', mnt: '/mnt' } as const

/** Lays out a sandbox under `root`, with `hosts` all naming 127.0.0.1 inside it. */
export async function makeSandbox(root: string, hosts: readonly string[]): Promise<Sandbox> {
  const sandbox: Sandbox = { root, home: path.join(root, 'home'), etc: path.join(root, 'etc'), varLib: path.join(root, 'var-lib'), mnt: path.join(root, 'mnt') }
  for (const dir of [sandbox.home, sandbox.etc, sandbox.varLib, sandbox.mnt, path.join(root, 'bin')]) await fs.mkdir(dir, { recursive: true })
  await fs.writeFile(path.join(sandbox.etc, 'hosts'), `127.0.0.1 localhost ${hosts.join(' ')}\n::1 localhost\n`)
  await fs.writeFile(path.join(root, 'bin', 'lectern'), `#!/bin/sh\nexec node ${JSON.stringify(path.join(PROJECT_ROOT, 'bin/run.js'))} "$@"\n`, { mode: 0o755 })
  return sandbox
}

/** A copy of a sandbox, so each example starts from the same state. */
export async function copySandbox(from: Sandbox, root: string): Promise<Sandbox> {
  await fs.cp(from.root, root, { recursive: true, verbatimSymlinks: true })
  return { root, home: path.join(root, 'home'), etc: path.join(root, 'etc'), varLib: path.join(root, 'var-lib'), mnt: path.join(root, 'mnt') }
}

export interface SandboxRun {
  env?: Record<string, string>
  stdin?: string
  /** Run on a pseudo-terminal (`script`), for prompts that need one; `stdin` is what is typed. */
  tty?: boolean
  /** Send `signal` once `url` answers (inside the sandbox), or once the command printed something. */
  stop?: { url?: string; output?: boolean; signal: 'SIGTERM' | 'SIGINT' }
  /** Commands started first and stopped at the end, each waited for until `readyUrl` answers. */
  background?: Array<{ command: string; readyUrl: string }>
  /** Ports inside the sandbox relayed to ports of this machine's loopback. */
  bridges?: Array<{ port: number; target: number }>
  timeoutMs?: number
}

/** Relays a Unix socket to a loopback port; Unix sockets are the one path into another network namespace. */
async function relay(socket: string, target: number): Promise<net.Server> {
  const server = net.createServer((inbound) => {
    const outbound = net.connect(target, '127.0.0.1')
    inbound.pipe(outbound).pipe(inbound)
    inbound.on('error', () => outbound.destroy())
    outbound.on('error', () => inbound.destroy())
  })
  await new Promise<void>((resolve) => server.listen(socket, resolve))
  return server
}

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`

export async function runInSandbox(sandbox: Sandbox, command: string, run: SandboxRun = {}): Promise<CliResult> {
  const work = path.join(sandbox.root, '.sandbox')
  await fs.rm(work, { recursive: true, force: true })
  const overlays = await Promise.all(
    (Object.keys(OVERLAID) as Array<keyof typeof OVERLAID>).map(async (key) => {
      const workDir = path.join(work, `work-${key}`)
      await fs.mkdir(workDir, { recursive: true })
      return { target: OVERLAID[key], upper: sandbox[key], work: workDir, replace: key === 'mnt' }
    }),
  )
  const relays = await Promise.all(
    (run.bridges ?? []).map(async (b) => {
      const socket = path.join(work, `${b.port}.sock`)
      return { port: b.port, socket, server: await relay(socket, b.target) }
    }),
  )
  const spec = {
    overlays,
    bridges: relays.map(({ port, socket }) => ({ port, socket })),
    background: run.background ?? [],
    cwd: sandbox.home,
    env: {
      PATH: `${path.join(sandbox.root, 'bin')}:${process.env.PATH}`,
      HOME: sandbox.home,
      LANG: 'C.UTF-8',
      TERM: 'dumb',
      ...run.env,
    },
    command: run.tty ? `script -qec ${quote(command)} /dev/null` : command,
    stop: run.stop,
  }
  const specFile = path.join(work, 'spec.json')
  await fs.writeFile(specFile, JSON.stringify(spec))
  try {
    const result = await execa('unshare', ['--user', '--map-root-user', '--net', '--mount', 'node', path.join(PROJECT_ROOT, 'test/helpers/sandbox.mjs'), specFile], {
      input: run.stdin ?? '',
      reject: false,
      timeout: run.timeoutMs ?? 120_000,
      env: { PATH: process.env.PATH },
      extendEnv: false,
    })
    return { stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode ?? -1 }
  } finally {
    await Promise.all(relays.map(({ server }) => new Promise((resolve) => server.close(resolve))))
  }
}
