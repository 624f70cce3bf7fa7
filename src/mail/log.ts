/**
 * Account mail without a relay: each message is written to the log at info, so the operator of
 * an install without `mail.smtpUrl` can hand a user their link. This is the one place a link's
 * token is logged; nothing here ever holds a password.
 */
import type { MailSender } from './sender.js'

export interface InfoLog {
  info(fields: object, message: string): void
}

/** Without `publicUrl` (mail.publicUrl) a link is a bare path, which the line says, lest it be handed on as it is. */
export function logSender(log: InfoLog, publicUrl: string): MailSender {
  const relative =
    publicUrl === ''
      ? " Its link is a path of the dashboard: put this server's public address before it (https://lectern.example.com/verify#token=...), or set mail.publicUrl (LECTERN_PUBLIC_URL) for whole links."
      : ''
  return {
    async send({ to, subject, text }) {
      log.info({ to, subject }, `account mail (no mail.smtpUrl is set, so it is logged instead of sent) to ${to}: ${subject}.${relative}\n${text}`)
    },
    close: () => {},
  }
}
