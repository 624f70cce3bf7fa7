/**
 * Documentation generated from source code: each language's exported API becomes one snippet per
 * symbol with its signature, doc comment and examples; private symbols, tests and files that do
 * not parse are left out without failing the rest.
 */
import { describe, expect, it } from 'vitest'
import { generateSourceSnippets, isSourcePath, type GeneratedSnippet } from '../../src/parse/source-code/index.js'

const SERVER_TS = `import { createHash } from 'node:crypto'

/** Settings of a server. */
export interface ServerOptions {
  /** TCP port to listen on. */
  port: number
  host?: string
}

export type Handler = (req: Request) => Promise<Response>

export enum LogLevel { Debug, Info }

/**
 * Creates an HTTP server that routes requests to handlers.
 *
 * @param options - where to listen
 * @returns a server that is not listening yet
 * @example
 * \`\`\`ts
 * const server = createServer({ port: 8080 })
 * await server.listen()
 * \`\`\`
 */
export function createServer(options: ServerOptions): Server {
  const id = createHash('sha1').update(String(options.port)).digest('hex')
  return new Server(id, options)
}

/** Routes requests by method and path. */
export class Router {
  readonly routes: string[] = []
  private secret = 1
  #hidden = 2

  constructor(private readonly prefix: string) {}

  /**
   * Adds a GET route.
   * @param path - the path pattern
   */
  get(path: string, handler: Handler): this {
    this.routes.push(this.prefix + path)
    return this
  }

  protected reset(): void {}

  private log(): void {}
}

/** Parses a duration such as \`10s\`. */
export const parseDuration = (text: string): number => Number.parseInt(text, 10) * 1000

function internalHelper(): number {
  return 42
}

/** @internal */
export function notForUsers(): void {}

/** Opens a database connection. */
export function connect(url: string): Connection
export function connect(url: string, retries: number): Connection
export function connect(url: string, retries = 0): Connection {
  return open(url, retries)
}

/** The default client. */
export default class Client {
  send(body: string): void {}
}
`

const WIDGETS_PY = `"""Widgets for dashboards."""
import os


def render_widget(widget: "Widget", *, width: int = 80) -> str:
    """Render a widget as text.

    Args:
        widget: the widget to draw.
        width: maximum line width.
    """
    return _pad(widget.name, width)


def _pad(text, width):
    """Private helper."""
    return text.ljust(width)


class Widget(Base):
    """A dashboard widget."""

    def __init__(self, name: str) -> None:
        self.name = name

    @property
    def title(self) -> str:
        """The widget's title."""
        return self.name.title()

    def _refresh(self):
        pass


class _Registry:
    """Not exported."""
`

const SERVER_GO = `package server

import "net/http"

// Server serves widgets over HTTP.
// It is safe for concurrent use.
type Server struct {
	Addr string
	mux  *http.ServeMux
}

// Handler handles one request.
type Handler interface {
	Serve(w http.ResponseWriter, r *http.Request) error
}

type config struct{}

// NewServer creates a Server listening on addr.
//
//go:noinline
func NewServer(addr string, opts ...Option) *Server {
	return &Server{Addr: addr}
}

// Start begins serving.
func (s *Server) Start() error {
	return http.ListenAndServe(s.Addr, s.mux)
}

func (s *Server) stop() {}

func newConfig() config { return config{} }
`

const byTitle = (generated: GeneratedSnippet[]) => new Map(generated.map((g) => [g.snippet.title, g.snippet]))

describe('TypeScript and JavaScript', () => {
  it('documents exported functions with their JSDoc, signature and examples', async () => {
    const snippets = byTitle(await generateSourceSnippets([{ path: 'src/http/server.ts', text: SERVER_TS }]))
    expect(snippets.get('function createServer(options)')).toEqual({
      kind: 'code',
      title: 'function createServer(options)',
      description: 'Creates an HTTP server that routes requests to handlers.\nParameter `options`: where to listen\nReturns a server that is not listening yet',
      breadcrumb: 'src > http > server',
      pageTitle: 'src/http/server.ts',
      anchor: 'createserver',
      codeList: [
        { language: 'typescript', code: 'export function createServer(options: ServerOptions): Server' },
        { language: 'typescript', code: 'const server = createServer({ port: 8080 })\nawait server.listen()' },
      ],
    })
  })

  it('shows classes with their public members only, and each public method on its own', async () => {
    const snippets = byTitle(await generateSourceSnippets([{ path: 'src/http/server.ts', text: SERVER_TS }]))
    expect(snippets.get('class Router')?.codeList[0].code).toBe(
      'export class Router {\n  readonly routes: string[]\n  constructor(private readonly prefix: string)\n  get(path: string, handler: Handler): this\n}',
    )
    expect(snippets.get('class Router')?.description).toBe('Routes requests by method and path.')
    expect(snippets.get('method Router.get(path, handler)')).toMatchObject({
      description: 'Adds a GET route.\nParameter `path`: the path pattern',
      anchor: 'router.get',
      codeList: [{ language: 'typescript', code: 'get(path: string, handler: Handler): this' }],
    })
    expect([...snippets.keys()].filter((t) => /reset|log|secret|hidden/.test(t))).toEqual([])
  })

  it('documents interfaces, type aliases, enums, function consts, overloads and the default export', async () => {
    const snippets = byTitle(await generateSourceSnippets([{ path: 'src/http/server.ts', text: SERVER_TS }]))
    expect([...snippets.keys()]).toEqual([
      'interface ServerOptions',
      'type Handler',
      'enum LogLevel',
      'function createServer(options)',
      'class Router',
      'method Router.get(path, handler)',
      'function parseDuration(text)',
      'function connect(url)',
      'class Client',
      'method Client.send(body)',
    ])
    expect(snippets.get('interface ServerOptions')?.codeList[0].code).toContain('/** TCP port to listen on. */\n  port: number')
    expect(snippets.get('function parseDuration(text)')?.codeList[0].code).toBe('export const parseDuration = (text: string): number => …')
    expect(snippets.get('function connect(url)')?.codeList[0].code).toBe(
      'export function connect(url: string): Connection\nexport function connect(url: string, retries: number): Connection',
    )
    expect(snippets.get('class Client')?.description).toBe('The default client.')
  })

  it('follows `export { ... }` and `export default name` to local declarations, in JavaScript too', async () => {
    const text = `/** Adds. */\nfunction add(a, b) { return a + b }\nfunction hidden() {}\n/** Main. */\nfunction main() {}\nexport { add }\nexport default main\n`
    const generated = await generateSourceSnippets([{ path: 'lib/math.js', text }])
    expect(generated.map((g) => [g.snippet.title, g.snippet.codeList[0]])).toEqual([
      ['function add(a, b)', { language: 'javascript', code: 'function add(a, b)' }],
      ['function main()', { language: 'javascript', code: 'function main()' }],
    ])
  })

  it('reads declaration files only when there is no TypeScript source', async () => {
    const dts = { path: 'index.d.ts', text: '/** Greets. */\nexport declare function greet(name: string): string\n' }
    expect((await generateSourceSnippets([dts])).map((g) => g.snippet.title)).toEqual(['function greet(name)'])
    const ts = { path: 'src/greet.ts', text: 'export function hello(): void {}\n' }
    expect((await generateSourceSnippets([dts, ts])).map((g) => g.path)).toEqual(['src/greet.ts'])
  })
})

describe('Python', () => {
  it('documents public functions, classes and methods with their docstrings', async () => {
    const generated = await generateSourceSnippets([{ path: 'widgets/render.py', text: WIDGETS_PY }])
    const snippets = byTitle(generated)
    expect([...snippets.keys()]).toEqual(['function render_widget(widget, width)', 'class Widget', 'method Widget.title()'])
    expect(snippets.get('function render_widget(widget, width)')).toMatchObject({
      description: 'Render a widget as text.\n\nArgs:\n    widget: the widget to draw.\n    width: maximum line width.',
      breadcrumb: 'widgets > render',
      anchor: 'render_widget',
      codeList: [{ language: 'python', code: 'def render_widget(widget: "Widget", *, width: int = 80) -> str:' }],
    })
    expect(snippets.get('class Widget')?.codeList[0].code).toBe(
      'class Widget(Base):\n    def __init__(self, name: str) -> None: ...\n    @property\n    def title(self) -> str: ...',
    )
    expect(snippets.get('method Widget.title()')).toMatchObject({
      description: "The widget's title.",
      codeList: [{ language: 'python', code: '@property\ndef title(self) -> str:' }],
    })
  })
})

describe('Go', () => {
  it('documents exported funcs, methods and types with their doc comments', async () => {
    const snippets = byTitle(await generateSourceSnippets([{ path: 'server/server.go', text: SERVER_GO }]))
    expect([...snippets.keys()]).toEqual(['struct Server', 'interface Handler', 'func NewServer(addr, ...opts)', 'method Server.Start()'])
    expect(snippets.get('struct Server')).toMatchObject({
      description: 'Server serves widgets over HTTP.\nIt is safe for concurrent use.',
      codeList: [{ language: 'go', code: 'type Server struct {\n\tAddr string\n\tmux  *http.ServeMux\n}' }],
    })
    expect(snippets.get('func NewServer(addr, ...opts)')).toMatchObject({
      description: 'NewServer creates a Server listening on addr.',
      anchor: 'newserver',
      codeList: [{ language: 'go', code: 'func NewServer(addr string, opts ...Option) *Server' }],
    })
    expect(snippets.get('method Server.Start()')?.codeList[0].code).toBe('func (s *Server) Start() error')
  })
})

describe('robustness and bounds', () => {
  it('skips files with syntax errors, logging why, and keeps the others', async () => {
    const logged: string[] = []
    const generated = await generateSourceSnippets(
      [
        { path: 'src/broken.ts', text: 'export function broken( {\n' },
        { path: 'pkg/broken.py', text: 'def broken(:\n    pass\n' },
        { path: 'cmd/broken.go', text: 'package main\nfunc Broken( {\n' },
        { path: 'src/ok.ts', text: 'export function ok(): void {}\n' },
      ],
      (msg) => logged.push(msg),
    )
    expect(generated.map((g) => g.snippet.title)).toEqual(['function ok()'])
    expect(logged).toEqual([
      expect.stringMatching(/^skipped src\/broken\.ts: it failed to parse: syntax error/),
      'skipped pkg/broken.py: it failed to parse: syntax error',
      'skipped cmd/broken.go: it failed to parse: syntax error',
    ])
  })

  it('leaves out tests, vendored and built code, and oversized files', async () => {
    expect(['src/a.test.ts', 'pkg/a_test.go', 'tests/helpers.py', 'test_api.py', 'src/__tests__/a.ts', 'vendor/x/y.go', 'dist/index.js', 'README.md'].filter(isSourcePath)).toEqual([])
    expect(['src/index.ts', 'examples/basic.py', 'cmd/main.go', 'lib/util.mjs'].every(isSourcePath)).toBe(true)
    const big = `export function big(): void {}\n${'// filler\n'.repeat(60_000)}`
    const logged: string[] = []
    expect(await generateSourceSnippets([{ path: 'src/big.ts', text: big }], (msg) => logged.push(msg))).toEqual([])
    expect(logged).toEqual(['skipped src/big.ts: over 524288 bytes'])
  })
})
