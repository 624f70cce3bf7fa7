/** What sends account mail: SMTP (smtp.ts) when the operator configured a relay, else the log (log.ts). */
export interface MailMessage {
  to: string
  subject: string
  text: string
}

export interface MailSender {
  send(message: MailMessage): Promise<void>
  close(): void
}
