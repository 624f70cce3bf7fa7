/**
 * Account mail without a relay: each message is written to the log at info, so the operator of
 * an install without `mail.smtpUrl` can hand a user their link. This is the one place a link's
 * token is logged; nothing here ever holds a password.
 */
import type { MailSender } from './sender.js'

export interface InfoLog {
  info(fields: object, message: string): void
}

export function logSender(log: InfoLog): MailSender {
  return {
    async send({ to, subject, text }) {
      log.info({ to, subject }, `account mail (no mail.smtpUrl is set, so it is logged instead of sent) to ${to}: ${subject}\n${text}`)
    },
    close: () => {},
  }
}
