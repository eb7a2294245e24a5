import MiniSearch from 'minisearch';
import { AnalysedFragments, FIELDS, analyseFragments } from './fields.js';
import { asksForPrice, statesPrice } from './answer-type.js';
import { coordinatedScore, pooledScores } from './rank.js';
import { questionConcepts, termPairs, type Concept } from './terms.js';
import type { FragmentRow } from '../store/records.js';

// Full-text search over a datastore's fragments: MiniSearch's BM25+ ranking
// over four fields (the fragment's words, the title of its section, the
// titles around that one, and its adjacent word pairs, for phrases), with the
// question's synonyms, its coordination counted per concept and the support
// of the fragment's document (rank.ts), and a score mapped to 0..1
// (`normalizedScore`).

/** Where a search hit comes from. */
export interface FragmentHit {
  datasourceId: string;
  fragment: FragmentRow;
  /** 0..1: the share of the question the fragment answers (see `normalizedScore`). */
  score: number;
}

export interface SearchOptions {
  topK: number;
  /** Only fragments of datasources this accepts. */
  datasourceFilter?: (datasourceId: string) => boolean;
}

/** A fragment as the index takes it: each field analysed into its words, each word the list of its terms (see fields.ts). */
interface Indexed {
  key: number;
  text: string[][];
  /** The title of the innermost section the fragment starts in. */
  heading: string[][];
  /** The titles of the sections around that one. */
  section: string[][];
  pairs: string[][];
}

/** Fragments analysed beforehand (on a reader thread), from the one at `from` on. */
export interface AnalysedSlice {
  analysed: AnalysedFragments;
  from: number;
}

interface Entry {
  datasourceId: string;
  fragment: FragmentRow;
  /** The distinct terms of its words and section titles. */
  terms: readonly string[];
}

// BM25+ parameters (MiniSearch's defaults).
const BM25 = { k: 1.2, b: 0.7, d: 0.5 };
/**
 * The title of a fragment's own section weighs one and a half times its words
 * (a leaf title such as "Vercel" must not outweigh the words of the question
 * found in the text); the titles of the sections around that one three
 * quarters, as every fragment of those sections carries them: a long section
 * titled "Widget" is not about each of the widget's words its fragments use.
 * A pair of adjacent question words found adjacent (a phrase) counts as one
 * more word.
 */
const FIELD_BOOST = { text: 1, heading: 1.5, section: 0.75, pairs: 1 };
/** A synonym counts for this much of the question's own word. */
const SYNONYM_WEIGHT = 0.7;

/**
 * A hit's score, 0..1: how well the passage matches the question's words it
 * matches (`match`), times how much of the question the documents know at all
 * (`known`).
 *
 * Each concept of the question (a word, or a phrase of the synonym list, with
 * its synonyms) weighs the IDF of its rarest term in the datastore, a third of
 * that for everyday words ("happens", "show", "work"). With `raw` MiniSearch's
 * BM25+ score (field boosts, times the number of the question's concepts it
 * holds: `coordinatedScore`, weighed by its document's other passages:
 * `pooledScores`), `count`
 * the concepts the datastore holds and `idfSum` their weights,
 * `x = raw / (count × idfSum)` is about 1.5 for a fragment of average length
 * holding every concept once, and `match = 1 − e^(−3x)` puts that near 0.99,
 * three of four equally rare concepts near 0.92, half of them near 0.68.
 *
 * `known = idfSum / (idfSum + missing)`: a question word no fragment holds adds
 * to `missing` three quarters of the question's mean concept weight, a name
 * (WordPress, GDPR) the documents never use a whole one. So an everyday word
 * the documents lack ("quickest", "roughly") costs a question of four known
 * concepts a sixth of its score, not all of it, while a question whose object
 * the documents never name ("cancel my subscription", "a native iOS app")
 * falls under the 0.7 an answer cites.
 */
export function normalizedScore(raw: number, count: number, idfSum: number, missing = 0): number {
  if (raw <= 0 || count === 0 || idfSum <= 0) return 0;
  const x = raw / (count * idfSum);
  const known = idfSum / (idfSum + missing);
  return Math.round((1 - Math.exp(-3 * x)) * known * 1e6) / 1e6;
}

/** What a question word no fragment holds weighs, in mean concept weights of the question: a name, any other word. */
const MISSING_NAME = 1;
const MISSING_WORD = 0.75;
/** How many of BM25+'s best fragments are ranked again: far more than an agent reads (8), few enough to stay cheap on a large datastore. */
const CANDIDATES = 100;
/**
 * A fragment whose document holds two more passages scoring as well keeps its
 * score; one alone in its document keeps 1 / 1.3 of it (`pooledScores`).
 */
const DOCUMENT_WEIGHT = 0.3;
const DOCUMENT_PASSAGES = 2;
/**
 * A passage that does not hold the kind of answer the question asks for (a
 * price: answer-type.ts) keeps this share of its score: its words may
 * match, but it cannot answer, so it falls under the 0.7 an answer cites and
 * after any passage that does hold one.
 */
const WITHOUT_ANSWER_TYPE = 0.5;

/** The search index of one datastore. */
export class FragmentIndex {
  readonly #search = new MiniSearch<Indexed>({
    idField: 'key',
    fields: [...FIELDS],
    storeFields: [],
    // Fields come analysed: a field is its words (the index counts the distinct ones), a word its terms.
    stringifyField: (words: string[][]) => words as unknown as string,
    tokenize: (words) => words as unknown as string[],
    processTerm: (terms) => terms as unknown as string[],
    searchOptions: { bm25: BM25, combineWith: 'OR', boost: FIELD_BOOST },
  });
  /** Per datasource, the index keys of its fragments. */
  readonly #keysByDatasource = new Map<string, number[]>();
  readonly #entries = new Map<number, Entry>();
  /** How many fragments hold each term (in their words or section titles), for IDF. */
  readonly #documentFrequency = new Map<string, number>();
  #nextKey = 1;

  /** Number of fragments indexed. */
  get size(): number {
    return this.#entries.size;
  }

  /** Indexes a datasource's fragments, replacing any it had. */
  replace(datasourceId: string, fragments: readonly FragmentRow[]): void {
    this.remove(datasourceId);
    this.add(datasourceId, fragments);
  }

  /**
   * Indexes more fragments of a datasource beside those it has (ingestion indexes a large file in
   * slices, analysed on a reader thread: `slice`; without it they are analysed here).
   */
  add(datasourceId: string, fragments: readonly FragmentRow[], slice: AnalysedSlice = { analysed: new AnalysedFragments(analyseFragments(fragments)), from: 0 }): void {
    if (fragments.length === 0) return;
    const keys: number[] = this.#keysByDatasource.get(datasourceId) ?? [];
    const documents: Indexed[] = [];
    const { analysed, from } = slice;
    for (const [i, fragment] of fragments.entries()) {
      const key = this.#nextKey++;
      keys.push(key);
      const at = from + i;
      const entry: Entry = { datasourceId, fragment, terms: analysed.distinctTerms(at) };
      this.#entries.set(key, entry);
      documents.push({ key, text: analysed.words(at, 'text'), heading: analysed.words(at, 'heading'), section: analysed.words(at, 'section'), pairs: analysed.words(at, 'pairs') });
      for (const term of entry.terms) this.#documentFrequency.set(term, (this.#documentFrequency.get(term) ?? 0) + 1);
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
      for (const term of entry.terms) {
        const count = (this.#documentFrequency.get(term) ?? 1) - 1;
        if (count > 0) this.#documentFrequency.set(term, count);
        else this.#documentFrequency.delete(term);
      }
      this.#entries.delete(key);
      this.#search.discard(key);
    }
    this.#keysByDatasource.delete(datasourceId);
  }

  /** The `topK` best fragments for `query`, best first, scored 0..1 (`normalizedScore`). */
  query(query: string, options: SearchOptions): FragmentHit[] {
    if (this.#entries.size === 0) return [];
    const asked = questionConcepts(query).map((concept) => ({ ...concept, weight: this.#weight(concept) }));
    const concepts = asked.filter((concept) => concept.weight > 0);
    if (concepts.length === 0) return [];
    const idfSum = concepts.reduce((sum, concept) => sum + concept.weight, 0);
    // Words the documents never use are part of the question all the same, a name (a product, a place) most of all.
    const mean = idfSum / concepts.length;
    const missing = asked.filter((concept) => concept.weight === 0).reduce((sum, concept) => sum + (concept.isName ? MISSING_NAME : MISSING_WORD) * mean, 0);

    const boosts = new Map<string, number>();
    for (const concept of concepts) {
      for (const [i, term] of concept.terms.entries()) boosts.set(term, Math.max(boosts.get(term) ?? 0, i < concept.own ? 1 : SYNONYM_WEIGHT));
    }
    const pairs = termPairs(concepts.map((concept) => concept.terms.slice(0, concept.own)));
    const filter = options.datasourceFilter;
    // The question is already analysed: MiniSearch gets its terms as they are.
    const results = this.#search.search([...boosts.keys(), ...pairs].join(' '), {
      tokenize: (text) => text.split(' '),
      processTerm: (term) => term,
      boostTerm: (term) => boosts.get(term) ?? 1,
      ...(filter ? { filter: (result) => filter(this.#entries.get(result.id as number)?.datasourceId ?? '') } : {}),
    });
    // MiniSearch ranks every fragment holding a term; the best of them are ranked again (rank.ts).
    const ranked: { entry: Entry; datasourceId: string; raw: number }[] = [];
    for (const result of results.slice(0, Math.max(CANDIDATES, options.topK))) {
      const entry = this.#entries.get(result.id as number);
      if (!entry) continue;
      ranked.push({ entry, datasourceId: entry.datasourceId, raw: coordinatedScore(result.score, result.terms, concepts) });
    }
    const pooled = pooledScores(ranked, DOCUMENT_WEIGHT, DOCUMENT_PASSAGES);
    const priceAsked = asksForPrice(query);
    const scored = ranked.map(({ entry }, i) => {
      const answerType = priceAsked && !statesPrice(entry.fragment.text) ? WITHOUT_ANSWER_TYPE : 1;
      return { entry, raw: pooled[i]! * answerType, score: normalizedScore(pooled[i]!, concepts.length, idfSum, missing) * answerType };
    });
    // By score, and where two round to the same, by the ranking's own order.
    scored.sort((a, b) => b.score - a.score || b.raw - a.raw);
    return scored.slice(0, options.topK).map(({ entry, score }) => ({ datasourceId: entry.datasourceId, fragment: entry.fragment, score: Math.round(score * 1e6) / 1e6 }));
  }

  /** A concept's weight: the IDF of its rarest own term the datastore holds (a synonym's, a little less, when it holds none). */
  #weight(concept: Concept): number {
    let own = 0;
    let synonym = 0;
    for (const [i, term] of concept.terms.entries()) {
      const idf = this.#idf(term);
      if (i < concept.own) own = Math.max(own, idf);
      else synonym = Math.max(synonym, idf * SYNONYM_WEIGHT);
    }
    return (own || synonym) * (concept.isLight ? 1 / 3 : 1);
  }

  #idf(term: string, fragments = this.#documentFrequency.get(term) ?? 0): number {
    const matching = fragments;
    if (matching === 0) return 0;
    const total = this.#entries.size;
    return Math.log(1 + (total - matching + 0.5) / (matching + 0.5));
  }
}
