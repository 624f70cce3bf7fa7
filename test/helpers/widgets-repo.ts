/**
 * The `acme/widgets` fixture: a realistic docs repository with every format the ingester reads
 * (GFM, Docusaurus MDX tabs, reStructuredText, a notebook) and every file it must leave out.
 * Each excluded file carries a word found nowhere else, so a query for it proves it was skipped.
 */
import { symlinkTo } from './git.js'

/** Words that exist only in files that must never be indexed. */
export const EXCLUDED_WORDS = {
  changelog: 'flibbertigibbet',
  license: 'zyzzogeton',
  internal: 'quuxplosion',
  logo: 'glyphmorphic',
} as const

export const WIDGETS_RULE = 'Always pass an explicit timeout'

const readme = `# Widgets

[![npm](https://img.shields.io/npm/v/widgets.svg)](https://www.npmjs.com/package/widgets) [![CI](https://github.com/acme/widgets/actions/workflows/ci.yml/badge.svg)](https://github.com/acme/widgets/actions)

Widgets is a small toolkit for building dashboard widgets in JavaScript, TypeScript and Python.

## Installation

Install the package from the npm registry before you create your first widget:

\`\`\`bash
npm install widgets
\`\`\`

## Usage

Read the guide in docs/guide.md to learn how to configure and render widgets.
`

const guide = `# Guide

This guide walks through configuring, rendering and installing widgets in a web application.

## Options

Every widget accepts the options below; unknown options are ignored with a warning.

| Option | Type | Default | Meaning |
|---|---|---|---|
| \`timeout\` | number | 5000 | Milliseconds before a render is abandoned |
| \`theme\` | string | \`"light"\` | Colour theme of the widget |
| \`refreshInterval\` | number | 0 | Seconds between automatic refreshes |

## Configure a widget

Call \`configure\` once at start-up to set defaults shared by every widget on the page:

\`\`\`ts
import { configure } from 'widgets'

configure({ theme: 'dark', timeout: 3000 })
\`\`\`

## Render a widget in the browser

Mount a widget into a DOM element with \`render\`:

\`\`\`js
import { render } from 'widgets'

render(document.getElementById('sales'), { kind: 'gauge', timeout: 2000 })
\`\`\`

## Install the package manager packages

Add widgets to your project with the package manager you already use:

\`\`\`bash title="npm"
npm install widgets
\`\`\`

\`\`\`bash title="yarn"
yarn add widgets
\`\`\`

\`\`\`bash title="pnpm"
pnpm add widgets
\`\`\`

## Serve the bundle

Build a production bundle and serve it with the bundled development server:

\`\`\`bash
npx widgets build --out public/widgets
npx widgets serve public --port 8080
\`\`\`
`

const tabs = `---
title: Creating widgets
---
import Tabs from '@theme/Tabs'
import TabItem from '@theme/TabItem'

# Creating widgets

## Create a widget

Create a widget with \`createWidget\`, in JavaScript or with full TypeScript types:

<Tabs>
<TabItem value="js" label="JavaScript">

\`\`\`js
import { createWidget } from 'widgets'

const widget = createWidget({ name: 'revenue', timeout: 1000 })
\`\`\`

</TabItem>
<TabItem value="ts" label="TypeScript">

\`\`\`ts
import { createWidget, type WidgetOptions } from 'widgets'

const options: WidgetOptions = { name: 'revenue', timeout: 1000 }
const widget = createWidget(options)
\`\`\`

</TabItem>
</Tabs>
`

const apiRst = `API reference
=============

The Python client talks to a widgets server over HTTP.

Python client
-------------

Connect the Python client to a widgets server and fetch a widget by name:

.. code-block:: python

   from widgets import Client

   client = Client("https://widgets.example.com", timeout=5)
   gauge = client.fetch_widget("sales-gauge")

Command line
------------

The package also installs a command line tool. List every widget on a server::

   widgets-cli list --server https://widgets.example.com
`

const cell = (cellType: 'markdown' | 'code', source: string) => ({
  cell_type: cellType,
  metadata: {},
  source: source.split(/(?<=\n)/),
  ...(cellType === 'code' ? { outputs: [], execution_count: null } : {}),
})

const notebook = JSON.stringify(
  {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
    cells: [
      cell('markdown', '# Quickstart notebook\n\nExplore widgets interactively in Jupyter.'),
      cell('markdown', '## Plot a sparkline in Jupyter\n\nDisplay a sparkline widget inline in the notebook output:'),
      cell('code', 'from widgets.jupyter import sparkline\n\nsparkline([3, 1, 4, 1, 5, 9], width=320)'),
    ],
  },
  null,
  1,
)

const changelog = `# Changelog

## 2.0.0

- Removed the ${EXCLUDED_WORDS.changelog} compatibility shim.
`

const license = `MIT License

Copyright (c) Acme ${EXCLUDED_WORDS.license}

Permission is hereby granted, free of charge, to any person obtaining a copy of this software.
`

const internalDoc = `# Internal runbook

Rotate the ${EXCLUDED_WORDS.internal} credentials every Monday:

\`\`\`bash
rotate-${EXCLUDED_WORDS.internal} --all
\`\`\`
`

/** A markdown header followed by bytes of an image: a NUL makes it binary. */
const logo = Buffer.concat([Buffer.from(`# Logo ${EXCLUDED_WORDS.logo}\n\n`), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x0d, 0x0a])])

export const WIDGETS_DESCRIPTION = 'Widgets is a small toolkit for building dashboard widgets in JavaScript, TypeScript and Python.'

export function widgetsFiles(): Record<string, string | Buffer> {
  return {
    'README.md': readme,
    'docs/guide.md': guide,
    'docs/tabs.mdx': tabs,
    'docs/api.rst': apiRst,
    'examples/quickstart.ipynb': notebook,
    'CHANGELOG.md': changelog,
    LICENSE: license,
    'docs/passwd.md': symlinkTo('/etc/passwd'),
    'docs/logo.md': logo,
    'internal/secret.md': internalDoc,
    'context7.json': JSON.stringify({ rules: [WIDGETS_RULE], excludeFolders: ['internal'] }, null, 2),
  }
}
