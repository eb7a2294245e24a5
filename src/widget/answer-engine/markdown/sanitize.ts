import { ALLOWED_ATTR, ALLOWED_TAGS, finishElement } from './policy.js';
import { chatPolicy } from '../trusted-types.js';
import { chunkImport } from '../../chunk-import.js';

/** Sanitizes renderer HTML into nodes of this document, ready to insert. */
export type Sanitize = (html: string) => Node[];

/** The HTML Sanitizer API, as far as the chat uses it (TypeScript's DOM library does not know it yet). */
interface SanitizerConstructor {
  new (config: { elements: string[]; attributes: string[]; comments: boolean; dataAttributes: boolean }): object;
}
type SettableElement = Element & { setHTML(html: string, options: { sanitizer: object }): void };

/** Elements the policy's own rules may change: links, images, inputs and anything with a class. */
const TO_FINISH = 'a,img,input,[class]';

/**
 * The browser's own sanitizer, where it has one: `Element.setHTML` with a
 * `Sanitizer` holding the policy's allow-lists (Chromium 146, Firefox 148;
 * not Safari yet); `undefined` elsewhere. Feature-detected, never by user
 * agent. It parses once, in an inert document (nothing loads or runs there,
 * so an image waits for the policy's referrer rule), always drops scripts,
 * frames, event handlers and `javascript:` addresses, and keeps only the
 * listed tags and attributes; the policy's own rules follow.
 */
export function nativeSanitizer(): Sanitize | undefined {
  const Native = (globalThis as { Sanitizer?: SanitizerConstructor }).Sanitizer;
  // (Where there is a Sanitizer there is an Element: the API is the window's, with the DOM's.)
  if (typeof Native !== 'function' || typeof (Element.prototype as Partial<SettableElement>).setHTML !== 'function') return undefined;
  let sanitizer: object;
  try {
    sanitizer = new Native({ elements: ALLOWED_TAGS, attributes: ALLOWED_ATTR, comments: false, dataAttributes: false });
  } catch {
    // An earlier shape of the API, with another configuration: not this one.
    return undefined;
  }
  const holder = document.implementation.createHTMLDocument('').createElement('div') as unknown as SettableElement;
  return (html) => {
    holder.setHTML(html, { sanitizer });
    for (const element of holder.querySelectorAll(TO_FINISH)) finishElement(element);
    // Copied out first: adopting a node takes it out of the live list.
    const nodes = [...holder.childNodes];
    for (const node of nodes) document.adoptNode(node);
    return nodes;
  };
}

/** The browser's own sanitizer, looked for once (null: there is none). */
let native: Sanitize | null | undefined;
/** DOMPurify's, once fetched. */
let purified: Sanitize | undefined;
/** DOMPurify's chunk, imported once it can be. */
const importDomPurify = chunkImport(() => import('./dompurify-sanitizer.js'), 'domPurifySanitizer');

const found = (): Sanitize | undefined => (native ??= nativeSanitizer() ?? null) ?? purified;

/**
 * Makes the sanitizer ready: the browser's own at once; where there is none,
 * DOMPurify, from a chunk of its own fetched once (after a failed fetch the
 * next call fetches again: `chunkImport`).
 */
export function loadSanitizer(): Promise<void> {
  if (found()) return Promise.resolve();
  return importDomPurify().then(({ domPurifySanitizer }) => void (purified ??= domPurifySanitizer({ tags: ALLOWED_TAGS, attributes: ALLOWED_ATTR, finishElement }, chatPolicy())));
}

/**
 * Turns renderer HTML into sanitized DOM nodes, ready to insert. In a browser
 * without a sanitizer of its own, once `loadSanitizer()` has settled (the
 * chat's `loadAnswerEngine()` waits for it).
 */
export function sanitizeToNodes(html: string): Node[] {
  const sanitize = found();
  if (!sanitize) throw new Error('kagent-chat: no markdown sanitizer yet: await loadAnswerEngine() first.');
  return sanitize(html);
}
