/**
 * Types for the functions the dashboard tests hand to page.evaluate. Those run in Chromium, but
 * the tests compile against Node's globals alone: lib.dom beside them would retype what src/
 * relies on (fetch bodies, linkedom's elements). So the part of the DOM the tests read is declared
 * here, under the DOM's own names, and such a function takes the page's globals with
 * `globalThis as unknown as InPage`. Types only: a value imported into such a function would be
 * missing in the page, where the function is run from its source text.
 */

export interface InPage {
  document: Document
  location: { hash: string }
  navigator: { clipboard: { readText(): Promise<string> } }
  getComputedStyle(element: Element): CSSStyleDeclaration
}

export interface Document {
  activeElement: Element | null
  querySelector<E extends Element = Element>(selectors: string): E | null
  querySelectorAll<E extends Element = Element>(selectors: string): Iterable<E>
  createRange(): Range
  createElement(tagName: 'canvas'): HTMLCanvasElement
}

export interface Element {
  tagName: string
  textContent: string | null
  outerHTML: string
  clientWidth: number
  getAttribute(name: string): string | null
  getBoundingClientRect(): DOMRect
}

export interface HTMLInputElement extends Element {
  labels: { length: number } | null
}

export interface HTMLSelectElement extends Element {
  options: Iterable<Element>
}

export interface HTMLCanvasElement extends Element {
  getContext(contextId: '2d'): { font: string; measureText(text: string): { width: number } } | null
}

export interface Range {
  selectNodeContents(node: Element): void
  getClientRects(): Iterable<DOMRect>
}

export interface DOMRect {
  top: number
  bottom: number
}

export interface CSSStyleDeclaration {
  font: string
  paddingLeft: string
  paddingRight: string
}
