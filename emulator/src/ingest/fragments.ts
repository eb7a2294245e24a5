import { PAGE_SEPARATOR, type ExtractedDocument, type SectionHeading } from './document.js';

/** A searchable piece of a document; `offset` is where `text` starts in `documentText(doc)`. */
export interface TextFragment {
  text: string;
  offset: number;
  pageNumber?: number;
  /** The titles of the sections the fragment's first words are in, outermost first (formats with headings). */
  section?: string[];
}

export interface FragmentOptions {
  /** Longest fragment in characters (default 1000). */
  size?: number;
  /** Characters a fragment repeats from the end of the one before it, so no sentence is only ever seen cut in half (default 200). */
  overlap?: number;
}

export const DEFAULT_FRAGMENT_SIZE = 1000;
export const DEFAULT_FRAGMENT_OVERLAP = 200;

const SENTENCE_END = new Set(['.', '!', '?', '。', '！', '？', ';', ':']);

/**
 * Splits a document into overlapping fragments of at most `size` characters. Fragments end at
 * the last paragraph break, line break, sentence end or space that fits (in that preference),
 * start at a word, never span two pages, and carry their page's number. Where a page lists
 * its headings, every section starts a fragment of its own (a fragment ends before the next
 * heading once it holds more than titles), and a fragment carries the titles of the sections
 * its first words after any titles are in: a short section is found by its own title, not
 * hidden in a fragment that carries the title of the section before it.
 */
export function splitIntoFragments(doc: ExtractedDocument, options: FragmentOptions = {}): TextFragment[] {
  const size = options.size ?? DEFAULT_FRAGMENT_SIZE;
  const overlap = options.overlap ?? Math.min(DEFAULT_FRAGMENT_OVERLAP, Math.floor(size / 5));
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`fragment size must be a positive whole number, not ${size}`);
  if (!Number.isInteger(overlap) || overlap < 0 || overlap >= size) {
    throw new RangeError(`fragment overlap must be a whole number from 0 to below the size (${size}), not ${overlap}`);
  }

  const fragments: TextFragment[] = [];
  let pageOffset = 0;
  for (const page of doc.pages) {
    const headings = page.headings ?? [];
    splitPage(page.text, size, overlap, headings, (start, end) => {
      const fragment: TextFragment = { text: page.text.slice(start, end), offset: pageOffset + start };
      if (page.pageNumber !== undefined) fragment.pageNumber = page.pageNumber;
      const section = sectionAt(headings, Math.min(afterTitles(page.text, start, end, headings), end - 1));
      if (section.length) fragment.section = section;
      fragments.push(fragment);
    });
    pageOffset += page.text.length + PAGE_SEPARATOR.length;
  }
  return fragments;
}

/**
 * The titles of the sections open at `offset`, outermost first. A fragment that starts on a
 * heading's line is in that heading's section.
 */
function sectionAt(headings: readonly SectionHeading[], offset: number): string[] {
  const open: SectionHeading[] = [];
  for (const heading of headings) {
    if (heading.offset > offset) break;
    while (open.length && open[open.length - 1]!.depth >= heading.depth) open.pop();
    open.push(heading);
  }
  return open.map((heading) => heading.title);
}

function splitPage(text: string, size: number, overlap: number, headings: readonly SectionHeading[], emit: (start: number, end: number) => void): void {
  let start = skipSpace(text, 0);
  let nextHeading = 0;
  while (start < text.length) {
    let end = text.length - start <= size ? text.length : cutPoint(text, start, start + size, size);
    // A section that starts inside the fragment starts the next fragment instead, unless the
    // fragment would hold nothing but titles (a heading right above its first subheading).
    while (nextHeading < headings.length && headings[nextHeading]!.offset <= start) nextHeading++;
    const opening = afterTitles(text, start, end, headings);
    let sectionStart = false;
    for (let i = nextHeading; i < headings.length && headings[i]!.offset < end; i++) {
      if (headings[i]!.offset < opening) continue;
      end = headings[i]!.offset;
      sectionStart = true;
      break;
    }
    const trimmedEnd = trimEndIndex(text, start, end);
    if (trimmedEnd > start) emit(start, trimmedEnd);
    if (end >= text.length) return;

    let next = end;
    // A new section starts clean, without the end of the one before.
    if (overlap > 0 && !sectionStart) next = wordStart(text, Math.max(end - overlap, start + 1), end);
    next = skipSpace(text, next);
    // Always move forward, whatever the text looks like.
    start = next > start ? next : end;
  }
}

/**
 * Where the words of `text` from `start` begin once the headings' titles that open it are
 * passed (`limit` when nothing else comes before it).
 */
function afterTitles(text: string, start: number, limit: number, headings: readonly SectionHeading[]): number {
  let at = skipSpace(text, start);
  for (const heading of headings) {
    if (at >= limit) return limit;
    if (heading.offset < at) continue;
    if (heading.offset > at || !text.startsWith(heading.title, at)) break;
    at = skipSpace(text, at + heading.title.length);
  }
  return Math.min(at, limit);
}

// Where to end a fragment that starts at `start` and may not pass `limit`.
function cutPoint(text: string, start: number, limit: number, size: number): number {
  // A cut earlier than half the size would make needlessly small fragments.
  const earliest = start + Math.max(1, Math.floor(size / 2));
  // Each search walks back from the limit no further than `earliest`, so splitting stays linear.
  for (let index = limit - 1; index >= earliest; index--) {
    if (text.charCodeAt(index) === 0x0a && text.charCodeAt(index - 1) === 0x0a) return index - 1;
  }
  for (let index = limit; index >= earliest; index--) {
    if (text.charCodeAt(index) === 0x0a) return index;
  }
  for (let index = limit - 1; index >= earliest; index--) {
    if (SENTENCE_END.has(text[index]!) && isSpace(text.charCodeAt(index + 1))) return index + 1;
  }
  for (let index = limit; index >= earliest; index--) {
    if (isSpace(text.charCodeAt(index))) return index;
  }
  // No break at all: cut at the limit, but never between the two halves of a surrogate pair.
  const code = text.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
}

// The first word start at or after `from` (before `end`); `from` itself when no space follows.
function wordStart(text: string, from: number, end: number): number {
  if (from === 0 || isSpace(text.charCodeAt(from - 1))) return from;
  for (let index = from; index < end; index++) {
    if (isSpace(text.charCodeAt(index))) return index;
  }
  const code = text.charCodeAt(from);
  return code >= 0xdc00 && code <= 0xdfff ? from + 1 : from;
}

function skipSpace(text: string, from: number): number {
  let index = from;
  while (index < text.length && isSpace(text.charCodeAt(index))) index++;
  return index;
}

function trimEndIndex(text: string, start: number, end: number): number {
  let index = end;
  while (index > start && isSpace(text.charCodeAt(index - 1))) index--;
  return index;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0d || code === 0x0c || code === 0xa0 || code === 0x3000;
}
