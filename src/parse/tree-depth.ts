/**
 * A bound on how deep a Markdown tree goes before the walkers of markdown.ts see it. They recurse
 * on the tree (a block quote's paragraphs, a JSX element's children), and a page of 3,000 nested
 * `<A>` elements or `> > >` quotes would overflow the stack. Real pages nest a few levels; below
 * MAX_TREE_DEPTH a node keeps only its text, gathered without recursion, as one paragraph (or one
 * text node where only phrasing may stand).
 */
import type { Nodes, Parent, Root } from 'mdast'

export const MAX_TREE_DEPTH = 32

/** Node types that stand inside a paragraph: their replacement is a text node, not a paragraph. */
const PHRASING = new Set(['emphasis', 'strong', 'delete', 'link', 'linkReference', 'mdxJsxTextElement', 'footnoteReference'])

export function clampDepth(root: Root): Root {
  const stack: Array<{ node: Parent; depth: number }> = [{ node: root, depth: 0 }]
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!
    node.children = node.children.map((child) => {
      if (!('children' in child)) return child
      if (depth + 1 < MAX_TREE_DEPTH) {
        stack.push({ node: child, depth: depth + 1 })
        return child
      }
      const text = { type: 'text' as const, value: textOf(child) }
      return (PHRASING.has(child.type) ? text : { type: 'paragraph' as const, children: [text] }) as typeof child
    })
  }
  return root
}

/** The literal text of a node and everything under it, in document order. */
function textOf(node: Nodes): string {
  const parts: string[] = []
  const stack: Nodes[] = [node]
  while (stack.length > 0) {
    const next = stack.pop()!
    if ('value' in next && typeof next.value === 'string') parts.push(next.value)
    if ('children' in next) for (let i = next.children.length - 1; i >= 0; i--) stack.push(next.children[i] as Nodes)
  }
  return parts.join(' ')
}
