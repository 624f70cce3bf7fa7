/**
 * The account mails and their links. A link points at a dashboard page and carries its token
 * in the fragment (`/verify#token=...`): browsers never send a fragment to the server, so no
 * request log, proxy log or Referer holds it; the page posts it to the API in a JSON body.
 */
import type { MailMessage } from './sender.js'

export type LinkPage = 'verify' | 'reset' | 'invitations'

/** `publicUrl` is mail.publicUrl; empty (links only in the log), the link is a path of the dashboard. */
export const linkTo = (publicUrl: string, page: LinkPage, token: string): string => `${publicUrl}/${page}#token=${token}`

export function verifyMail(to: string, link: string): MailMessage {
  return {
    to,
    subject: 'Confirm your email for Lectern',
    text: `Welcome to Lectern.\n\nConfirm that this address is yours by opening:\n${link}\n\nThe link works once, for 24 hours. If you did not sign up, ignore this mail.\n`,
  }
}

export function alreadyRegisteredMail(to: string, resetLink: string): MailMessage {
  return {
    to,
    subject: 'You already have a Lectern account',
    text: `Someone (you, we hope) tried to sign up to Lectern with this address, which already has an account.\n\nSign in instead; if you forgot your password, set a new one here:\n${resetLink}\n\nThe link works once, for 1 hour. If this was not you, ignore this mail: nothing changed.\n`,
  }
}

export function resetMail(to: string, link: string): MailMessage {
  return {
    to,
    subject: 'Reset your Lectern password',
    text: `Set a new password for your Lectern account by opening:\n${link}\n\nThe link works once, for 1 hour, and signs you out everywhere. If you did not ask for it, ignore this mail: your password stays as it is.\n`,
  }
}

export function invitationMail(to: string, team: string, inviter: string, role: string, link: string): MailMessage {
  return {
    to,
    subject: `${inviter} invited you to ${team} on Lectern`,
    text: `${inviter} invited you to join the teamspace ${team} on Lectern as ${role}.\n\nSign up or sign in with this address and you are added; or accept here:\n${link}\n\nThe invitation is valid for 7 days.\n`,
  }
}
