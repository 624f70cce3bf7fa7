/**
 * Takes out of a release's node_modules what only builds, lints or other platforms use: the
 * packages' command links, lint and VCS dot-files, native sources and objects once the addon is linked, test
 * addons, and prebuilt addons for other platforms. Nothing here is loaded at run time; the
 * release's checks (the program starts, both native modules load) run after it.
 */
import fs from 'node:fs'
import path from 'node:path'
import { execa } from 'execa'

const DOT_FILE = /^\.(cvsignore|hgignore|eslintrc(\..+)?|eslintignore|npmignore|gitattributes|gitignore|gitmodules|editorconfig|travis\.yml|nycrc(\..+)?|prettierrc(\..+)?|prettierignore|jshintrc|taprc|airtap\.yml)$/
/** `.bin` holds npm's links to the packages' own command-line tools, which nothing runs; npm made them absolute, pointing into the build's folder. */
const DOT_DIR = new Set(['.bin', '.github', '.circleci', '.vscode', '.idea'])
/** Paths relative to node_modules: better-sqlite3's amalgamated SQLite and C++ sources, its test extension. */
const LEFT_OUT = ['better-sqlite3/deps', 'better-sqlite3/src', 'better-sqlite3/build/Release/test_extension.node', 'better-sqlite3/build/deps']
const PLATFORM = 'linux-x64'

export async function pruneDependencies(nodeModules: string): Promise<void> {
  for (const relative of LEFT_OUT) fs.rmSync(path.join(nodeModules, relative), { recursive: true, force: true })
  const addons: string[] = []
  for (const entry of fs.readdirSync(nodeModules, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name)
    if (!fs.existsSync(full)) continue
    if (entry.isDirectory() && DOT_DIR.has(entry.name)) fs.rmSync(full, { recursive: true })
    else if (entry.isDirectory() && path.basename(entry.parentPath) === 'prebuilds' && entry.name !== PLATFORM) fs.rmSync(full, { recursive: true })
    else if (entry.isDirectory() && path.basename(entry.parentPath) === 'Release' && ['obj.target', 'obj', '.deps'].includes(entry.name)) fs.rmSync(full, { recursive: true })
    else if (entry.isFile() && DOT_FILE.test(entry.name)) fs.rmSync(full)
    else if (entry.isFile() && entry.parentPath.endsWith(`${path.sep}build${path.sep}Release`) && entry.name.endsWith('.a')) fs.rmSync(full)
    else if (entry.isFile() && entry.name.endsWith('.node')) addons.push(full)
  }
  // Shared objects are loaded, never executed; the ones built here lose their debug symbols.
  for (const addon of addons) {
    fs.chmodSync(addon, 0o644)
    if (addon.includes(`${path.sep}build${path.sep}Release${path.sep}`)) await execa('strip', ['--strip-unneeded', addon])
  }
}
