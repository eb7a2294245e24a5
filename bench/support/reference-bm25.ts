// A reference BM25 as Lucene (and Anserini's "flat" BEIR runs) computes it: one
// field, Lucene's English analyzer (standard tokenizer, possessives dropped,
// lower case, Lucene's 33 English stop words, Porter stemmer), k1 0.9, b 0.4,
// IDF ln(1 + (N - n + 0.5) / (n + 0.5)), document lengths stored rounded to
// one byte as Lucene stores them (SmallFloat.intToByte4). For benches only:
// the bar the emulator's search is held to.
import { stemmer } from 'stemmer';

const LUCENE_STOP_WORDS = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(' '),
);

/** Words as Lucene's standard tokenizer cuts them (letters and digits, joined by an inner apostrophe, point or comma), analysed. */
export function referenceTerms(text: string): string[] {
  const terms: string[] = [];
  for (const [word] of text.matchAll(/[\p{L}\p{N}]+(?:['’.,][\p{L}\p{N}]+)*/gu)) {
    const lower = word.toLowerCase().replace(/['’]s$/, '');
    if (!LUCENE_STOP_WORDS.has(lower)) terms.push(stemmer(lower));
  }
  return terms;
}

/** A length as Lucene keeps it: exact up to 23, then its 4 leading bits (SmallFloat.intToByte4, then byte4ToInt). */
export function luceneLength(length: number): number {
  const free = 24;
  if (length < free) return length;
  const rest = length - free;
  const bits = 32 - Math.clz32(rest);
  if (bits < 4) return free + rest;
  const shift = bits - 4;
  return free + (((rest >>> shift) & 0x07) | 0x08) * 2 ** shift;
}

export class ReferenceBm25 {
  readonly #postings = new Map<string, { documents: number[]; counts: number[] }>();
  readonly #lengths: number[] = [];
  readonly #ids: string[] = [];
  readonly k1: number;
  readonly b: number;

  constructor(options: { k1?: number; b?: number } = {}) {
    this.k1 = options.k1 ?? 0.9;
    this.b = options.b ?? 0.4;
  }

  add(id: string, text: string): void {
    const document = this.#ids.length;
    const terms = referenceTerms(text);
    this.#ids.push(id);
    this.#lengths.push(terms.length);
    const counts = new Map<string, number>();
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    for (const [term, count] of counts) {
      const list = this.#postings.get(term) ?? { documents: [], counts: [] };
      list.documents.push(document);
      list.counts.push(count);
      this.#postings.set(term, list);
    }
  }

  /** The `topK` best document ids for `query`, best first. */
  search(query: string, topK: number): string[] {
    const total = this.#ids.length;
    const average = this.#lengths.reduce((sum, length) => sum + length, 0) / total;
    const scores = new Float64Array(total);
    // Lucene scores a query term as often as it is written.
    for (const term of referenceTerms(query)) {
      const list = this.#postings.get(term);
      if (!list) continue;
      const idf = Math.log(1 + (total - list.documents.length + 0.5) / (list.documents.length + 0.5));
      for (const [i, document] of list.documents.entries()) {
        const tf = list.counts[i]!;
        scores[document]! += (idf * tf) / (tf + this.k1 * (1 - this.b + (this.b * luceneLength(this.#lengths[document]!)) / average));
      }
    }
    return [...scores.keys()]
      .filter((document) => scores[document]! > 0)
      .sort((a, b) => scores[b]! - scores[a]! || a - b)
      .slice(0, topK)
      .map((document) => this.#ids[document]!);
  }
}
