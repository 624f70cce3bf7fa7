/**
 * Account mail through the operator's SMTP relay, with nodemailer (STARTTLS when the relay
 * offers it, `smtps://` for TLS from the start). The relay's password comes from the environment
 * (LECTERN_SMTP_PASSWORD), so it is never a setting that `lectern config get` would show.
 */
import nodemailer from 'nodemailer'
import type { MailSender } from './sender.js'

export function smtpSender(smtpUrl: string, from: string, password: string | undefined): MailSender {
  const url = new URL(smtpUrl)
  const transport = nodemailer.createTransport({
    host: url.hostname,
    port: url.port === '' ? undefined : Number(url.port),
    secure: url.protocol === 'smtps:',
    auth: url.username === '' ? undefined : { user: decodeURIComponent(url.username), pass: password ?? '' },
  })
  return {
    async send({ to, subject, text }) {
      await transport.sendMail({ from, to, subject, text })
    },
    close: () => transport.close(),
  }
}
