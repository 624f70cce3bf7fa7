/**
 * Adding web sources: an llms.txt file (`POST /v2/add/llmstxt`) or a website to crawl
 * (`POST /v2/add/website`). Library IDs follow the rules in src/sources/llmstxt.ts
 * (`/llmstxt/<host-path>`) and src/sources/website.ts (`/websites/<host-base-path>`).
 */
import type { FastifyInstance } from 'fastify'
import { llmstxtSubmission } from '../../../src/sources/llmstxt.js'
import { websiteSubmission } from '../../../src/sources/website.js'
import { AddLlmsTxtBody, AddWebsiteBody, type AddLlmsTxtBodyType, type AddWebsiteBodyType } from '../../schemas/libraries.js'
import { addAnswer, submitPlaced } from '../../submitter.js'

export default async function addWeb(app: FastifyInstance): Promise<void> {
  app.post<{ Body: AddLlmsTxtBodyType }>('/v2/add/llmstxt', { schema: { body: AddLlmsTxtBody }, config: { access: 'apiKey' } }, async (request) => {
    const submitted = await submitPlaced(app, request, llmstxtSubmission(request.body.llmstxtUrl))
    app.runtime.worker.wake()
    return await addAnswer(app, request, submitted)
  })

  app.post<{ Body: AddWebsiteBodyType }>('/v2/add/website', { schema: { body: AddWebsiteBody }, config: { access: 'apiKey' } }, async (request) => {
    const submitted = await submitPlaced(app, request, websiteSubmission(request.body.websiteUrl, request.body.websiteBaseUrl, request.body.render))
    app.runtime.worker.wake()
    return await addAnswer(app, request, submitted)
  })
}
