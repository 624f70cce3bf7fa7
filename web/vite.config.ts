import { defineConfig } from 'vite'
import { compression } from 'vite-plugin-compression2'

// The dashboard is built into dist/web/ and served by `lectern serve` (server/routes/dashboard.ts).
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    // Inline scripts would need a CSP exception: the module preload polyfill stays out.
    modulePreload: { polyfill: false },
    // Everything as files: data: URLs for fonts or images would widen the CSP.
    assetsInlineLimit: 0,
    sourcemap: false,
  },
  plugins: [compression({ algorithms: ['gzip', 'brotliCompress'], threshold: 1024 })],
})
