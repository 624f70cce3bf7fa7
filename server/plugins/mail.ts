/** The install's mailer (src/mail/) for the cloud's account routes; mail under way is sent before the app closes. */
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { createMailer, type Mailer } from '../../src/mail/index.js'

declare module 'fastify' {
  interface FastifyInstance {
    mailer: Mailer
  }
}

async function mail(app: FastifyInstance): Promise<void> {
  const mailer = createMailer(app.lecternOptions.config.mail, app.log)
  app.decorate('mailer', mailer)
  app.addHook('onClose', async () => mailer.close())
}

export default fp(mail, { name: 'lectern-mail' })
