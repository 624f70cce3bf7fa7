/**
 * A local SMTP server (the `smtp-server` package, a real SMTP implementation) on 127.0.0.1 port 0:
 * the stand-in for the operator's mail relay, which cannot run here. It keeps every message it
 * receives; a test waits for the next mail to an address and reads the links in it.
 */
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'
import { onTestFinished } from 'vitest'
import type { Defer } from './tmp.js'

export interface ReceivedMail {
  from: string
  to: string[]
  subject: string
  /** The decoded text body. */
  text: string
}

export interface SmtpSink {
  url: string
  received: ReceivedMail[]
  /** The next mail to `to` not yet taken (waits for it); fails after the timeout. */
  next(to: string, timeoutMs?: number): Promise<ReceivedMail>
}

/** Undoes quoted-printable, which nodemailer uses for text with long lines (the links). */
function decodeQuotedPrintable(body: string): string {
  const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
  return Buffer.from(bytes, 'latin1').toString('utf8')
}

function parse(raw: string, from: string, to: string[]): ReceivedMail {
  const split = raw.indexOf('\r\n\r\n')
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ')
  const body = raw.slice(split + 4)
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1] ?? ''
  const encoding = header('Content-Transfer-Encoding').toLowerCase()
  const text = encoding === 'quoted-printable' ? decodeQuotedPrintable(body) : encoding === 'base64' ? Buffer.from(body, 'base64').toString('utf8') : body
  return { from, to, subject: header('Subject'), text: text.replace(/\r\n/g, '\n') }
}

/** `login`: the relay asks for this user and password (over plain text, as only a loopback test may); without it, anyone may send. */
export async function startSmtpSink(defer: Defer = onTestFinished, login?: { user: string; pass: string }): Promise<SmtpSink> {
  const received: ReceivedMail[] = []
  const taken = new Set<ReceivedMail>()
  const waiters = new Set<() => void>()
  const server = new SMTPServer({
    authOptional: login === undefined,
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      if (login && auth.username === login.user && auth.password === login.pass) callback(null, { user: auth.username })
      else callback(new Error('Invalid username or password'))
    },
    disabledCommands: ['STARTTLS'],
    logger: false,
    // close() waits this long for clients to say QUIT (30 s by default, as long as a hook may take).
    closeTimeout: 1000,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : ''
        received.push(parse(Buffer.concat(chunks).toString('latin1'), from, session.envelope.rcptTo.map((r) => r.address)))
        for (const wake of waiters) wake()
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  defer(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const { port } = server.server.address() as AddressInfo
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    next(to, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const mail = received.find((m) => !taken.has(m) && m.to.includes(to))
          if (!mail) return false
          taken.add(mail)
          waiters.delete(check)
          clearTimeout(timer)
          resolve(mail)
          return true
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`no mail to ${to} within ${timeoutMs} ms; received: ${received.map((m) => `${m.to.join(',')}: ${m.subject}`).join('; ')}`))
        }, timeoutMs)
        if (!check()) waiters.add(check)
      })
    },
  }
}

/** The token of the link to a dashboard page in a mail (`<publicUrl>/<page>#token=...`). */
export function tokenIn(mail: ReceivedMail, page: 'verify' | 'reset' | 'invitations'): string {
  const match = new RegExp(`/${page}#token=([A-Za-z0-9_-]+)`).exec(mail.text)
  if (!match) throw new Error(`no /${page} link in the mail "${mail.subject}":\n${mail.text}`)
  return match[1]!
}
