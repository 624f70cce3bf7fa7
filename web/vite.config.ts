import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { brotliCompress, constants, gzip } from 'node:zlib'
import { defineConfig, type Plugin } from 'vite'

const OUT_DIR = path.join(import.meta.dirname, '..', 'dist', 'web')
/** Smaller files gain too little from compression to be worth a second and third copy. */
const COMPRESS_FROM_BYTES = 1024

/**
 * Writes `.br` and `.gz` beside every text asset, which the server sends to browsers that accept
 * them (@fastify/static's preCompressed): compressed once at build, at the highest levels,
 * instead of on every request. (vite-plugin-compression2 would do this, but it pulls in rollup,
 * whose per-platform binaries are not all on the registry mirror our installs use.)
 */
function precompress(): Plugin {
  return {
    name: 'lectern-precompress',
    apply: 'build',
    async writeBundle(_options, bundle) {
      const files = Object.keys(bundle).filter((name) => /\.(js|css|svg|html)$/.test(name))
      await Promise.all(
        files.map(async (name) => {
          const file = path.join(OUT_DIR, name)
          const data = await readFile(file)
          if (data.length < COMPRESS_FROM_BYTES) return
          await writeFile(`${file}.br`, await promisify(brotliCompress)(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }))
          await writeFile(`${file}.gz`, await promisify(gzip)(data, { level: 9 }))
        }),
      )
    },
  }
}

// The dashboard is built into dist/web/ and served by `lectern serve` (server/routes/dashboard/page.ts).
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: OUT_DIR,
    emptyOutDir: true,
    // Inline scripts would need a CSP exception: the module preload polyfill stays out.
    modulePreload: { polyfill: false },
    // Everything as files: data: URLs for fonts or scripts would widen the CSP.
    assetsInlineLimit: 0,
    sourcemap: false,
  },
  plugins: [precompress()],
})
