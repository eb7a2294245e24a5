import type { CitationLink } from './citations.js';
import { makeElement } from './make-element.js';

// Part of the answer engine (the chat's second part): it takes the links already
// worded by the first part, so the two share no code.

const MARKER = /\[(\d{1,3})\]/g;
const HAS_MARKER = /\[\d{1,3}\]/;
/** Text inside these is left as written: code shows `[1]` literally, a link cannot hold a link. */
const SKIP = 'a,code,pre';

// NodeFilter.SHOW_TEXT, as its value: the build writes it in place.
const SHOW_TEXT = 4;

/** What a marker needs of its source, and no more. */
export type MarkerLink = Pick<CitationLink, 'number' | 'url' | 'description' | 'label'>;

/** Markers are linked a slice per frame, each slice about this long, so a long answer never makes one long task. */
const SLICE_MS = 8;

/**
 * Turns `[n]` markers in a rendered answer into links to source n: keyboard
 * reachable, named for screen readers, with the source shown on hover and
 * focus. A marker without an address is a button that moves focus to its
 * source in `list` (the answer's list of sources). Markers without a matching
 * source stay text. Every value goes in as text or a checked attribute, never
 * as markup. Resolves once all are linked.
 */
export async function linkCitationMarkers(root: Element, citations: readonly MarkerLink[], list?: Element): Promise<void> {
  if (!citations.length) return;
  const document = root.ownerDocument;
  // The text nodes with a marker, found before any is replaced.
  const walker = document.createTreeWalker(root, SHOW_TEXT);
  const nodes: Text[] = [];
  for (let node; (node = walker.nextNode() as Text | null); ) {
    const skip = node.parentElement!.closest(SKIP);
    if (!(skip && skip !== root && root.contains(skip)) && HAS_MARKER.test(node.data)) nodes.push(node);
  }
  let sliceEnds = performance.now() + SLICE_MS;
  for (const node of nodes) {
    if (performance.now() > sliceEnds) {
      await new Promise(requestAnimationFrame);
      sliceEnds = performance.now() + SLICE_MS;
    }
    const value = node.data;
    const pieces: (string | Node)[] = [];
    let last = 0;
    for (const match of value.matchAll(MARKER)) {
      const citation = citations[Number(match[1]) - 1];
      if (!citation) continue;
      pieces.push(value.slice(last, match.index), citationMarker(document, citation, list));
      last = match.index + match[0].length;
    }
    if (!pieces.length) continue;
    pieces.push(value.slice(last));
    node.replaceWith(...pieces.filter((piece) => piece !== ''));
  }
}

function citationMarker(document: Document, citation: MarkerLink, list: Element | undefined): HTMLElement {
  const span = (attributes: Record<string, string>, text: string) => makeElement(document, 'span', { ...attributes, 'aria-hidden': 'true' }, text);
  const marker = makeElement(
    document,
    // No address to open: the marker is a button that points at the source in the list instead.
    citation.url ? 'a' : 'button',
    {
      ...(citation.url ? { href: citation.url, target: '_blank', rel: 'noopener noreferrer' } : { type: 'button' }),
      class: 'citation',
      part: 'citation',
      'data-citation': String(citation.number),
      'aria-label': citation.label,
    },
    span({}, String(citation.number)),
    span({ class: 'citation-card', part: 'citation-card' }, citation.description),
  );
  if (!citation.url) marker.addEventListener('click', () => list?.querySelector<HTMLElement>(`li[part="source"]:nth-child(${citation.number})`)?.focus());
  return marker;
}
