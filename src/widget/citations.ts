import type { Source } from '../protocol/index.js';
import { isWebAddress } from './markdown/sanitize.js';
import type { ChatStrings } from './strings.js';

/** A source as shown under an answer, numbered as the answer's `[n]` markers count. */
export interface Citation {
  number: number;
  /** Datasource name; `undefined` when the service gave none. */
  name: string | undefined;
  /** Only an http(s) address; anything else is not linked. */
  url: string | undefined;
  page: number | undefined;
  totalPages: number | undefined;
  /** Relevance, 0 to 1. */
  score: number | undefined;
}

const finite = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() ? value.trim() : undefined);

/** The answer's sources, one per datasource (its best chunk), best first. */
export function citationsFrom(sources: readonly Source[]): Citation[] {
  const best = new Map<string, { source: Source; order: number }>();
  sources.forEach((source, order) => {
    if (!source || typeof source !== 'object') return;
    const key = text(source.datasource_id) ?? text(source.datasource_name) ?? text(source.source_url) ?? `#${order}`;
    const kept = best.get(key);
    if (!kept || (finite(source.score) ?? -Infinity) > (finite(kept.source.score) ?? -Infinity)) best.set(key, { source, order: kept?.order ?? order });
  });
  return [...best.values()]
    .sort((a, b) => (finite(b.source.score) ?? -Infinity) - (finite(a.source.score) ?? -Infinity) || a.order - b.order)
    .map(({ source }, index) => {
      const score = finite(source.score);
      const page = finite(source.page_number);
      return {
        number: index + 1,
        name: text(source.datasource_name),
        url: isWebAddress(source.source_url) ? source.source_url : undefined,
        page: page !== undefined && page >= 0 ? page : undefined,
        totalPages: finite(source.total_pages),
        score: score === undefined ? undefined : Math.min(1, Math.max(0, score)),
      };
    });
}

/** `page 3 · 91% relevant` (empty when the service gave neither). */
export function citationDetails(citation: Citation, strings: ChatStrings): string {
  const parts: string[] = [];
  if (citation.page !== undefined) parts.push(strings.sourcePage(citation.page, citation.totalPages));
  if (citation.score !== undefined) parts.push(strings.sourceRelevance(citation.score));
  return parts.join(' · ');
}

/** `Guide.pdf · page 3 · 91% relevant` */
export function describeCitation(citation: Citation, strings: ChatStrings): string {
  const details = citationDetails(citation, strings);
  return `${citation.name ?? strings.unnamedSource}${details ? ` · ${details}` : ''}`;
}

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
export function linkCitationMarkers(root: Element, citations: readonly Citation[], strings: ChatStrings): void {
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
      pieces.push(value.slice(last, match.index), citationMarker(document, citation, strings));
      last = match.index + match[0].length;
    }
    if (!pieces.length) continue;
    pieces.push(value.slice(last));
    node.replaceWith(...pieces.filter((piece) => piece !== ''));
  }
}

function citationMarker(document: Document, citation: Citation, strings: ChatStrings): HTMLElement {
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
  marker.setAttribute('aria-label', strings.citationLabel(citation.number, describeCitation(citation, strings)));
  const number = document.createElement('span');
  number.setAttribute('aria-hidden', 'true');
  number.textContent = String(citation.number);
  const card = document.createElement('span');
  card.className = 'citation-card';
  card.setAttribute('part', 'citation-card');
  card.setAttribute('aria-hidden', 'true');
  card.textContent = describeCitation(citation, strings);
  marker.append(number, card);
  return marker;
}
