// A frozen copy of the emulator's search as it was before the question-set work (issue 13):
// one text field, no section titles, no code-name splitting or synonyms, and a score
// that falls with every question word the documents lack. Kept only so that
// bench/emulator-questions.bench.ts can measure today's ranking beside the old one.
import MiniSearch from 'minisearch';
import { stemmer } from 'stemmer';
import { eng } from 'stopword';
import type { FragmentRow } from '../../emulator/src/store/records.js';
import type { FragmentHit, SearchOptions } from '../../emulator/src/search/fragment-index.js';

// Full-text search over a datastore's fragments: MiniSearch's BM25+ ranking
// (with its boost for fragments that match more of the query's terms) over
// stemmed words without stopwords, and a score mapped to 0..1.

// The package's English list lacks common question words; these complete it.
const MORE_STOPWORDS = 'does doing done when why will shall its not no nor so just us she hers ours yours mine whom whose am isn aren wasn weren don doesn didn won cannot off once again further few own ever every please tell know want need'.split(' ');
const STOPWORDS = new Set([...eng, ...MORE_STOPWORDS]);
const tokenize = MiniSearch.getDefault('tokenize') as (text: string) => string[];

/** A word as it is indexed: lower case, stemmed; stopwords and one-letter words dropped (`null`). */
export function searchTerm(word: string): string | null {
  const lower = word.toLowerCase();
  if (lower.length < 2 && !/\d/.test(lower)) return null;
  if (STOPWORDS.has(lower)) return null;
  return stemmer(lower);
}

/** The distinct indexed terms of a text. */
export function searchTerms(text: string): string[] {
  const terms = new Set<string>();
  for (const word of tokenize(text)) {
    const term = searchTerm(word);
    if (term) terms.add(term);
  }
  return [...terms];
}

interface Indexed {
  key: number;
  datasourceId: string;
  text: string;
}

// BM25+ parameters, MiniSearch's defaults written out because `normalizedScore` depends on them.
const BM25 = { k: 1.2, b: 0.7, d: 0.5 };

/**
 * Maps MiniSearch's score to 0..1, keeping the order. `raw` is the BM25+ sum
 * times the number of query terms matched; divided by (query terms x their
 * summed IDF) it is about 1.5 for a fragment of average length holding every
 * term once, less when terms are missing (missing rare terms weigh more).
 * `1 - e^(-3x)` then puts a full match near 0.99, three of four equally rare
 * terms near 0.92, half of them near 0.68 and a third near 0.39: above the
 * service's 0.7 source threshold when most of the question is found, as its
 * vector search's cosine similarities are.
 */
export function normalizedScore(raw: number, queryTermCount: number, queryIdfSum: number): number {
  if (raw <= 0 || queryTermCount === 0 || queryIdfSum <= 0) return 0;
  const x = raw / (queryTermCount * queryIdfSum);
  return Math.round((1 - Math.exp(-3 * x)) * 1e6) / 1e6;
}

/** The search index of one datastore. */
export class FragmentIndex {
  readonly #search = new MiniSearch<Indexed>({
    idField: 'key',
    fields: ['text'],
    storeFields: [],
    processTerm: searchTerm,
    searchOptions: { bm25: BM25, combineWith: 'OR' },
  });
  /** Per datasource, the index keys of its fragments. */
  readonly #keysByDatasource = new Map<string, number[]>();
  readonly #entries = new Map<number, { datasourceId: string; fragment: FragmentRow }>();
  /** How many fragments hold each term, for the score's IDF. */
  readonly #documentFrequency = new Map<string, number>();
  #nextKey = 1;

  /** Number of fragments indexed. */
  get size(): number {
    return this.#entries.size;
  }

  /** Indexes a datasource's fragments, replacing any it had. */
  replace(datasourceId: string, fragments: readonly FragmentRow[]): void {
    this.remove(datasourceId);
    if (fragments.length === 0) return;
    const keys: number[] = [];
    const documents: Indexed[] = [];
    for (const fragment of fragments) {
      const key = this.#nextKey++;
      keys.push(key);
      this.#entries.set(key, { datasourceId, fragment });
      documents.push({ key, datasourceId, text: fragment.text });
      for (const term of searchTerms(fragment.text)) this.#documentFrequency.set(term, (this.#documentFrequency.get(term) ?? 0) + 1);
    }
    this.#search.addAll(documents);
    this.#keysByDatasource.set(datasourceId, keys);
  }

  /** Removes a datasource's fragments. */
  remove(datasourceId: string): void {
    const keys = this.#keysByDatasource.get(datasourceId);
    if (!keys) return;
    for (const key of keys) {
      const entry = this.#entries.get(key);
      if (!entry) continue;
      for (const term of searchTerms(entry.fragment.text)) {
        const count = (this.#documentFrequency.get(term) ?? 1) - 1;
        if (count > 0) this.#documentFrequency.set(term, count);
        else this.#documentFrequency.delete(term);
      }
      this.#entries.delete(key);
      this.#search.discard(key);
    }
    this.#keysByDatasource.delete(datasourceId);
  }

  /** The `topK` best fragments for `query`, best first, scored 0..1. */
  query(query: string, options: SearchOptions): FragmentHit[] {
    const terms = searchTerms(query);
    if (terms.length === 0 || this.#entries.size === 0) return [];
    const total = this.#entries.size;
    let idfSum = 0;
    for (const term of terms) {
      const matching = this.#documentFrequency.get(term) ?? 0;
      idfSum += Math.log(1 + (total - matching + 0.5) / (matching + 0.5));
    }
    const filter = options.datasourceFilter;
    // Searching the processed terms: the query was already tokenized and stemmed above.
    const results = this.#search.search(terms.join(' '), {
      tokenize: (text) => text.split(' '),
      processTerm: (term) => term,
      ...(filter ? { filter: (result) => filter(this.#entries.get(result.id as number)?.datasourceId ?? '') } : {}),
    });
    const hits: FragmentHit[] = [];
    for (const result of results) {
      if (hits.length >= options.topK) break;
      const entry = this.#entries.get(result.id as number);
      if (!entry) continue;
      hits.push({ ...entry, score: normalizedScore(result.score, terms.length, idfSum) });
    }
    return hits;
  }
}
