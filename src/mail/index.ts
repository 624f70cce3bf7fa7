/**
 * The mailer of an install: SMTP when `mail.smtpUrl` is set, else the log. Mail is posted, not
 * awaited: an answer never waits for (or tells about) the relay, so a sign-up for a known address
 * takes as long as one for a new one, and a failed delivery is logged without its text (which
 * holds a link). A relay without a public URL is refused at start: its links would have nowhere
 * to point, and taking the address from a request's Host header would let anyone have reset
 * links sent to their own site.
 */
import type { LecternConfig } from '../config.js'
import { LecternError } from '../errors.js'
import { logSender, type InfoLog } from './log.js'
import { linkTo, type LinkPage } from './messages.js'
import type { MailMessage, MailSender } from './sender.js'
import { smtpSender } from './smtp.js'

export interface MailLog extends InfoLog {
  error(fields: object, message: string): void
}

export interface Mailer {
  /** Sends in the background; a failure is logged. */
  post(message: MailMessage): void
  /** The dashboard link of a page with a token. */
  link(page: LinkPage, token: string): string
  /** Waits for the mail under way, then closes the connection to the relay. */
  close(): Promise<void>
}

export function createMailer(mail: LecternConfig['mail'], log: MailLog, env: NodeJS.ProcessEnv = process.env): Mailer {
  let sender: MailSender
  if (mail.smtpUrl === '') sender = logSender(log, mail.publicUrl)
  else if (mail.publicUrl === '') {
    throw new LecternError('validation_error', "mail.smtpUrl is set but mail.publicUrl is not: set LECTERN_PUBLIC_URL to the dashboard's address (https://lectern.example.com) for the links in account mail.")
  } else sender = smtpSender(mail.smtpUrl, mail.from, env.LECTERN_SMTP_PASSWORD)
  const underway = new Set<Promise<void>>()
  return {
    post(message) {
      const sending = sender
        .send(message)
        .catch((err: unknown) => log.error({ to: message.to, subject: message.subject, reason: (err as Error).message }, `could not send account mail to ${message.to}`))
        .finally(() => underway.delete(sending))
      underway.add(sending)
    },
    link: (page, token) => linkTo(mail.publicUrl, page, token),
    async close() {
      await Promise.all(underway)
      sender.close()
    },
  }
}
