import type { CitationLink } from './citations.js';

// Part of the answer engine (the chat's second part): it takes the links already
// worded by the first part, so the two share no code.

const MARKER = /\[(\d{1,3})\]/g;
const HAS_MARKER = /\[\d{1,3}\]/;
/** Text inside these is left as written: code shows `[1]` literally, a link cannot hold a link. */
const SKIP = new Set(['A', 'CODE', 'PRE']);

/**
 * Turns `[n]` markers in a rendered answer into links to source n: keyboard
 * reachable, named for screen readers, with the source shown on hover and
 * focus. Markers without a matching source stay text. Every value goes in
 * as text or a checked attribute, never as markup.
 */
export function linkCitationMarkers(root: Element, citations: readonly CitationLink[]): void {
  if (!citations.length) return;
  const document = root.ownerDocument;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode(node) {
      for (let parent = node.parentElement; parent && parent !== root; parent = parent.parentElement) {
        if (SKIP.has(parent.tagName)) return NodeFilter.FILTER_REJECT;
      }
      return HAS_MARKER.test(node.nodeValue ?? '') ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_SKIP;
    },
  });
  const nodes: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) nodes.push(node as Text);
  for (const node of nodes) {
    const value = node.nodeValue ?? '';
    const pieces: (string | Node)[] = [];
    let last = 0;
    for (const match of value.matchAll(MARKER)) {
      const citation = citations[Number(match[1]) - 1];
      if (!citation) continue;
      pieces.push(value.slice(last, match.index), citationMarker(document, citation));
      last = match.index + match[0].length;
    }
    if (!pieces.length) continue;
    pieces.push(value.slice(last));
    node.replaceWith(...pieces.filter((piece) => piece !== ''));
  }
}

function citationMarker(document: Document, citation: CitationLink): HTMLElement {
  let marker: HTMLElement;
  if (citation.url) {
    marker = document.createElement('a');
    marker.setAttribute('href', citation.url);
    marker.setAttribute('target', '_blank');
    marker.setAttribute('rel', 'noopener noreferrer');
  } else {
    // No address to open: the marker points at the source in the list instead.
    marker = document.createElement('button');
    marker.setAttribute('type', 'button');
  }
  marker.className = 'citation';
  marker.setAttribute('part', 'citation');
  marker.dataset.citation = String(citation.number);
  marker.setAttribute('aria-label', citation.label);
  const number = document.createElement('span');
  number.setAttribute('aria-hidden', 'true');
  number.textContent = String(citation.number);
  const card = document.createElement('span');
  card.className = 'citation-card';
  card.setAttribute('part', 'citation-card');
  card.setAttribute('aria-hidden', 'true');
  card.textContent = citation.description;
  marker.append(number, card);
  return marker;
}
