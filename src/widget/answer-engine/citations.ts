import type { Source } from '../../protocol/index.js';
import type { ChatStrings } from '../element/strings.js';

/** The English words of an answer's sources and its `[n]` markers; a page's `strings` replace any of them. */
export const SOURCE_WORDS: Required<Pick<ChatStrings, 'sourcesHeading' | 'unnamedSource' | 'sourcePage' | 'sourceRelevance' | 'citationLabel'>> = {
  sourcesHeading: 'Sources',
  unnamedSource: 'Untitled source',
  sourcePage: (page: number, totalPages?: number) => (totalPages ? `page ${page} of ${totalPages}` : `page ${page}`),
  sourceRelevance: (score: number) => `${Math.round(score * 100)}% relevant`,
  citationLabel: (number: number, sourceName: string) => `Source ${number}: ${sourceName}`,
};

/** One of the sources' words: the page's own (its `strings`), or else the English default. */
export const sourceWord = <K extends keyof typeof SOURCE_WORDS>(strings: ChatStrings, key: K): (typeof SOURCE_WORDS)[K] => (strings[key] ?? SOURCE_WORDS[key]) as (typeof SOURCE_WORDS)[K];

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

/** Whether `url` is an absolute http(s) address. */
export function isWebAddress(url: unknown): url is string {
  if (typeof url !== 'string') return false;
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
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
  if (citation.page !== undefined) parts.push(sourceWord(strings, 'sourcePage')(citation.page, citation.totalPages));
  if (citation.score !== undefined) parts.push(sourceWord(strings, 'sourceRelevance')(citation.score));
  return parts.join(' · ');
}

/** A source as the visitor reads it: under the answer in the list of sources, and on its `[n]` markers. */
export interface CitationLink {
  number: number;
  /** Only an http(s) address; without one the marker points at the source in the list. */
  url: string | undefined;
  /** The datasource's name, or the words for a source without one. */
  name: string;
  /** `page 3 · 91% relevant` (empty when the service gave neither). */
  details: string;
  /** Shown on a marker's hover and focus: `Guide.pdf · page 3 · 91% relevant`. */
  description: string;
  /** The marker's accessible name. */
  label: string;
}

/** The answer's sources worded for the visitor, numbered as `citationsFrom` numbers them. */
export function citationLinks(sources: readonly Source[], strings: ChatStrings): CitationLink[] {
  return citationsFrom(sources).map((citation) => {
    const name = citation.name ?? sourceWord(strings, 'unnamedSource');
    const details = citationDetails(citation, strings);
    const description = details ? `${name} · ${details}` : name;
    return { number: citation.number, url: citation.url, name, details, description, label: sourceWord(strings, 'citationLabel')(citation.number, description) };
  });
}
