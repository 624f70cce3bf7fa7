import { text } from 'node:stream/consumers'
import password from '@inquirer/password'

/** A password asked for on a terminal, or read from standard input when it is not one (a secrets file, a pipe). */
export async function readPassword(email: string): Promise<string> {
  if (process.stdin.isTTY) return password({ message: `Password for ${email}:`, mask: '*' })
  return (await text(process.stdin)).replace(/\r?\n$/, '')
}
