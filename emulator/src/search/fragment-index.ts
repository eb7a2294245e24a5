import { AnalysedFragments, analyseFragments } from './fields.js';
import { Postings, countIn } from './postings.js';
import { bestKeys, pooledScores } from './rank.js';
import { readUnknownWords, type Vocabulary } from './readings.js';
import { answerable, leads, shownScore, type Standing } from './score.js';
import { holdsSubject, subjectOf, writtenTogether } from './subject.js';
import { LIGHT_WEIGHT, questionConcepts, searchTerms, type Concept, type ConceptOptions } from './terms.js';
import type { FragmentRow } from '../store/records.js';

// Full-text search over a datastore's fragments: BM25F (Lucene's k1 and b) over three fields (the
// fragment's words, the title of its section, the titles around that one), each concept of the
// question (a word, or a phrase of the synonym list with its synonyms) scored once and only the
// question's most selective concepts scored, then the best candidates weighed by the rest of
// their document (rank.ts). The score shown weighs the share of the question the passage holds
// and how far its document leads the others found (score.ts).

/** Where a search hit comes from. */
export interface FragmentHit {
  datasourceId: string;
  fragment: FragmentRow;
  /** 0..1: how likely a right source it is, from the share of the question it holds and its document's lead (score.ts). */
  score: number;
  /**
   * 0..1: how likely it is that the datastore holds what answers the question, judged from this
   * passage (`answerable` in score.ts): an agent that finds its best passage below its line says
   * it does not know, whatever the passage's score.
   */
  answerable: number;
  /** What the score is made of (with `SearchOptions.standing`: the search bench fits the score's slopes on them). */
  standing?: Standing;
}

export interface SearchOptions {
  topK: number;
  /** Only fragments of datasources this accepts. */
  datasourceFilter?: (datasourceId: string) => boolean;
  /** Each hit also carries what its score is made of. */
  standing?: boolean;
  /** A fragment is ranked as if its score grew by this times the share of the question's weight the title of its own section holds (`HEADING_MATCH` for a how-to question; default 0). */
  headingMatch?: number;
}

/** Fragments analysed beforehand (on a reader thread), from the one at `from` on. */
export interface AnalysedSlice {
  analysed: AnalysedFragments;
  from: number;
}

/** Parts of the ranking that can be left out, each on by default (the search bench measures what each adds). */
export interface Ranking extends ConceptOptions {
  /** Section titles weigh as fields of their own (BM25F); off: only the fragment's words count. */
  titles?: boolean;
  /** A passage is weighed by the rest of its document. */
  documentSupport?: boolean;
  /** A synonym of several words stands for the question's word only where all its words are; off: each of its words does, at 0.7 of its own IDF. */
  wholeSynonyms?: boolean;
  /** What one occurrence of a word of the titles around a fragment weighs, against its own words' 1. */
  aroundTitles?: number;
  /** A question's word no fragment holds is read as one they hold, when a reading is confident (readings.ts). */
  unknownWords?: boolean;
}

/** Lucene's BM25 parameters, the ones its published figures use. */
const K1 = 0.9;
const B = 0.4;
/**
 * Per field (text, heading, section), what one occurrence weighs: the title of a fragment's
 * own section, and the titles around it (its document's and its parent sections'), one and a
 * half times its words: a heading path says what the passage is about, where a word of its text
 * may be said in passing (the titles around it from 1 to 1.5: one more question in the top three
 * of the set written from README's headings, every other set and SciFact unmoved; 2 the same).
 */
const FIELD_WEIGHTS = [1, 1.5, 1.5];
/** A synonym counts for this much of the question's own word. */
const SYNONYM_WEIGHT = 0.7;
/**
 * Only the question's most selective concepts score (by IDF): a query's cost is bounded
 * whatever its length, and a question rarely has more than a dozen.
 */
export const MAX_SCORED_CONCEPTS = 32;
/** How many of the best fragments are ranked again: far more than an agent reads (8), few enough to stay cheap. */
const CANDIDATES = 100;
/** A fragment whose document holds two more passages scoring as well keeps its score; one alone keeps 1 / 1.3 of it. */
const DOCUMENT_WEIGHT = 0.3;
const DOCUMENT_PASSAGES = 2;
/** How many fragments holding a word are looked through for two words written side by side (a split of a question's unknown word). */
const ADJACENT_CHECKED = 1_000;
/** What a word of the question no fragment holds weighs, in mean concept weights of the question (a name weighs as a term no fragment holds: the most a term can). */
const MISSING_WORD = 0.75;
/**
 * For a question asking how to do a task (the answers pass it as `SearchOptions.headingMatch`), a
 * fragment whose own section title names the task ("Put the chat on your site" for "How do I add
 * the chat to my site?") is ranked as if its score grew by this times the share of the question's
 * weight that title holds. BM25 saturates: a title's words added little to a fragment whose text
 * holds them too, so a passage naming them in passing ranked above the section about them.
 */
export const HEADING_MATCH = 0.6;

interface Entry {
  datasourceId: string;
  fragment: FragmentRow;
}

/** Whether the title of a fragment's own section holds every concept of the question that is not of everyday words (one at least). */
function titleNames(fragment: FragmentRow, concepts: readonly { concept: Concept }[]): boolean {
  const title = new Set(searchTerms(fragment.section?.at(-1) ?? ''));
  const telling = concepts.filter(({ concept }) => !concept.isLight);
  return telling.length > 0 && telling.every(({ concept }) => concept.terms.some((term) => title.has(term)) || concept.synonyms.some((phrase) => phrase.every((term) => title.has(term))));
}

/** A concept of the question as the index scores it. */
interface ScoredConcept {
  /** Term ids with the weight of one of their occurrences (IDF × the concept's factor); the first `own` are the question's own, the rest one-word synonyms. */
  terms: { id: number; idf: number }[];
  own: number;
  /** Synonyms of several words, each scoring only in a fragment holding all its terms. */
  phrases: { id: number; idf: number }[][];
  /** What the concept weighs: the sum of its own terms' IDF (or its best synonym's), times its factor. */
  weight: number;
}

/** The search index of one datastore. */
export class FragmentIndex {
  readonly #postings = new Postings<Entry>();
  /** Per datasource, the index keys of its fragments. */
  readonly #keysByDatasource = new Map<string, number[]>();
  readonly #ranking: Required<Ranking>;

  constructor(ranking: Ranking = {}) {
    this.#ranking = { synonyms: true, lightWords: true, titles: true, documentSupport: true, wholeSynonyms: true, aroundTitles: FIELD_WEIGHTS[2]!, unknownWords: true, ...ranking };
  }

  /** Number of fragments indexed. */
  get size(): number {
    return this.#postings.size;
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
    const { analysed, from } = slice;
    const termIds = this.#termIdsFor(analysed);
    for (const [i, fragment] of fragments.entries()) keys.push(this.#postings.add({ datasourceId, fragment }, analysed, from + i, termIds));
    this.#keysByDatasource.set(datasourceId, keys);
  }

  /** Removes a datasource's fragments; returns whether it had any. */
  remove(datasourceId: string): boolean {
    const keys = this.#keysByDatasource.get(datasourceId);
    if (!keys) return false;
    for (const key of keys) this.#postings.remove(key);
    this.#keysByDatasource.delete(datasourceId);
    return true;
  }

  /**
   * Gives back what building the index took beyond what it holds: the room its arrays grew
   * into, and the term map of the last file indexed in slices. For a datastore that has settled
   * (`DatastoreIndexes` runs it once changes stop, yielding to requests between its steps);
   * results do not change. Returns whether it gave anything back.
   */
  *tidySteps(): Generator<void, boolean> {
    this.#analysed = undefined;
    this.#analysedTermIds = new Int32Array(0);
    return yield* this.#postings.tidySteps();
  }

  /** `tidySteps` at once. */
  tidy(): boolean {
    const steps = this.tidySteps();
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  }

  /** The bytes the index's arrays hold, beside its term dictionary and fragments. */
  get bytes(): number {
    return this.#postings.bytes + this.#scores.byteLength * 4 + this.#phraseCounts.byteLength * 2;
  }

  /**
   * The `topK` best fragments for `query`, best first, each scored 0..1 (`shownScore`). Each
   * scored concept (weighed by its IDF) adds its weight × tf / (tf + k1), tf being its BM25F
   * count (field-weighted, normalised by length): a concept once in a fragment of average length
   * gives 0.53 of its weight, twice 0.69, three times 0.77. That sum is weighed by the support
   * of the fragment's document (at most 1); its share of the question's weight is multiplied by
   * how much of the question the documents know at all: a word no fragment holds costs three
   * quarters of the question's mean concept weight, a name as much as the rarest term can.
   */
  query(query: string, options: SearchOptions): FragmentHit[] {
    const postings = this.#postings;
    if (postings.size === 0) return [];
    const asked = questionConcepts(query, this.#ranking, this.#ranking.unknownWords ? (words, question) => readUnknownWords(words, question, this.#vocabulary) : undefined);
    const weighed = asked.map((concept) => ({ concept, scored: this.#scored(concept.terms.slice(0, concept.own), concept.synonyms, concept.isLight) }));
    const known = weighed.filter(({ scored }) => scored.weight > 0);
    if (known.length === 0) return [];
    // The most selective concepts score; the others are the question's all the same.
    const concepts = known
      .map(({ scored }) => scored)
      .sort((a, b) => b.weight - a.weight)
      .slice(0, MAX_SCORED_CONCEPTS);
    const weightSum = concepts.reduce((sum, concept) => sum + concept.weight, 0);
    const mean = known.reduce((sum, { scored }) => sum + scored.weight, 0) / known.length;
    const unheardOf = Math.log(1 + (postings.size + 0.5) / 0.5);
    const missing = weighed.filter(({ scored }) => scored.weight === 0).reduce((sum, { concept }) => sum + (concept.isName ? unheardOf : MISSING_WORD * mean), 0);
    const knownShare = weightSum / (weightSum + missing);
    // Whether the question is about what the documents hold at all: a word no fragment holds weighs as a term in one fragment.
    let inDatastore = weightSum / (weightSum + (weighed.length - known.length) * unheardOf);
    // The question's subject (subject.ts): its telling words the datastore holds, most telling first; a word written with
    // hyphens whose parts no fragment holds together ("fine-tune" where documents only say "tuned") is held by none.
    const byWeight = [...known].sort((a, b) => b.scored.weight - a.scored.weight).map(({ concept }) => concept);
    const compounds = new Set(byWeight.map((concept) => concept.compound).filter(Boolean));
    const apart = new Set([...compounds].filter((compound) => !this.#heldTogether(compound.split('-'))));
    // A question whose one telling word the datastore holds writes it beside one the datastore never uses ("free trial"):
    // it asks about a thing the documents do not name, and that word alone ("a free port") is the word in another sense.
    const weightOf = new Map(weighed.map(({ concept, scored }) => [concept, scored.weight]));
    const telling = byWeight.filter((concept) => !concept.isLight);
    let besideUnknown = telling.length === 1 && writtenTogether(query, asked).some((pair) => pair.includes(telling[0]!) && pair.some((concept) => !weightOf.get(concept)));

    const { scores, conceptScores, phraseScores, phraseCounts, headingWeights, inHeading } = this.#scratch(postings.keyLimit);
    const touched: number[] = [];
    const conceptTouched: number[] = [];
    for (const concept of concepts) {
      // A concept scores once: its own words summed, or its best synonym, whichever is more.
      for (const [i, term] of concept.terms.entries()) {
        const synonym = i >= concept.own;
        this.#forEachMatch(term.id, (key, match, titled) => {
          const score = term.idf * match;
          if (titled) inHeading[key] = 1;
          if (conceptScores[key] === 0) conceptTouched.push(key);
          conceptScores[key] = synonym ? Math.max(conceptScores[key]!, score) : conceptScores[key]! + score;
        });
      }
      for (const phrase of concept.phrases) {
        const found: number[] = [];
        for (const term of phrase) {
          this.#forEachMatch(term.id, (key, match) => {
            if (phraseCounts[key] === 0) found.push(key);
            phraseCounts[key]!++;
            phraseScores[key]! += term.idf * match;
          });
        }
        for (const key of found) {
          if (phraseCounts[key] === phrase.length) {
            if (conceptScores[key] === 0) conceptTouched.push(key);
            conceptScores[key] = Math.max(conceptScores[key]!, phraseScores[key]!);
          }
          phraseCounts[key] = 0;
          phraseScores[key] = 0;
        }
      }
      for (const key of conceptTouched) {
        if (scores[key] === 0) touched.push(key);
        scores[key]! += conceptScores[key]!;
        conceptScores[key] = 0;
        if (inHeading[key]) {
          headingWeights[key]! += concept.weight;
          inHeading[key] = 0;
        }
      }
      conceptTouched.length = 0;
    }

    const filter = options.datasourceFilter;
    const accept = (key: number) => {
      const entry = postings.value(key);
      return entry !== undefined && (!filter || filter(entry.datasourceId));
    };
    const headingMatch = this.#ranking.titles ? (options.headingMatch ?? 0) : 0;
    const ranked = bestKeys(touched, scores, Math.max(CANDIDATES, options.topK), accept).map((key) => {
      const entry = postings.value(key)!;
      return { key, entry, datasourceId: entry.datasourceId, raw: scores[key]!, titled: 1 + (headingMatch * headingWeights[key]!) / weightSum };
    });
    // The scratch is left clean for the next query.
    for (const key of touched) {
      scores[key] = 0;
      headingWeights[key] = 0;
    }
    // Nothing matched, or the datasource filter let nothing through.
    if (ranked.length === 0) return [];
    const final = this.#ranking.documentSupport ? pooledScores(ranked, DOCUMENT_WEIGHT, DOCUMENT_PASSAGES) : ranked.map((hit) => hit.raw);
    // The title's match orders the passages; the share of the question each holds stays its words'.
    const ordered = final.map((score, i) => score * ranked[i]!.titled);
    const best = Math.max(...ordered);
    // A word still unknown (not a name) beside others that the best passage's own title names, and no other document's titles do
    // ("vercel gotchas": Deploy to Vercel): the question is about that section, the unknown word weighs as an ordinary missing one.
    if (missing > 0 && weighed.every(({ concept, scored }) => scored.weight > 0 || !concept.isName) && titleNames(ranked[ordered.indexOf(best)]!.entry.fragment, known)) {
      const named = new Set(ranked.filter((hit) => titleNames(hit.entry.fragment, known)).map((hit) => hit.datasourceId));
      // Then the word the documents hold is the section's subject ("Vercel gotchas"), not a word in another sense.
      if (named.size === 1) {
        inDatastore = weightSum / (weightSum + missing);
        besideUnknown = false;
      }
    }
    const subject = subjectOf(query, byWeight, new Set([...byWeight.filter((concept) => apart.has(concept.compound)), ...(besideUnknown ? telling : [])]));
    const lead = leads(ranked.map((hit, i) => ({ datasourceId: hit.datasourceId, score: ordered[i]! })));
    const scored = ranked.map((hit, i) => {
      const standing = { share: (final[i]! / weightSum) * knownShare, ofBest: ordered[i]! / best, lead: lead[i]!, inDatastore };
      return { hit, raw: ordered[i]!, standing, score: shownScore(standing) };
    });
    // By score, and where two round to the same, by the ranking's own order.
    scored.sort((a, b) => b.score - a.score || b.raw - a.raw || a.hit.key - b.hit.key);
    // Whether a passage holds the question's subject is read from its text, so only when its `answerable` is read: an
    // answer reads its best passage's alone, and reading every passage given (a hundred, for some callers) cost a
    // search several times its ranking.
    return scored.slice(0, options.topK).map(({ hit, score, standing: weighed }) => {
      const { fragment } = hit.entry;
      if (options.standing) {
        const standing = { ...weighed, holdsSubject: holdsSubject(fragment, subject) };
        return { datasourceId: hit.datasourceId, fragment, score, answerable: answerable(standing), standing };
      }
      let read: number | undefined;
      return {
        datasourceId: hit.datasourceId,
        fragment,
        score,
        get answerable() {
          return (read ??= answerable({ ...weighed, holdsSubject: holdsSubject(fragment, subject) }));
        },
      };
    });
  }

  /** Calls `each` with every live fragment holding term `id`, its BM25F saturation there (tf / (tf + k1), 0..1) and whether the title of its own section holds it. */
  #forEachMatch(id: number, each: (key: number, match: number, inHeading: boolean) => void): void {
    const postings = this.#postings;
    const weights = [FIELD_WEIGHTS[0]!, FIELD_WEIGHTS[1]!, this.#ranking.aroundTitles];
    const fields = this.#ranking.titles ? weights.length : 1;
    const averages = weights.map((_, field) => postings.averageLength(field));
    postings.forEachPosting(id, (key, counts) => {
      let tf = 0;
      for (let field = 0; field < fields; field++) {
        const count = countIn(counts, field);
        if (count) tf += (weights[field]! * count) / (1 - B + (B * postings.length(key, field)) / averages[field]!);
      }
      if (tf > 0) each(key, tf / (tf + K1), fields > 1 && countIn(counts, 1) > 0);
    });
  }

  /**
   * A concept's own terms and synonym phrases with their weights in this datastore (a term no
   * fragment holds is left out), and the concept's weight. A one-word synonym weighs 0.7 of its
   * own IDF; a phrase 0.7 of the question's own word, shared among its terms (its own terms'
   * IDF when the documents lack the question's word), so a phrase of common words neither
   * outweighs the word it stands for nor matches on one of its words.
   */
  #scored(own: readonly string[], synonyms: readonly string[][], isLight: boolean): ScoredConcept {
    const factor = isLight ? LIGHT_WEIGHT : 1;
    const scored: ScoredConcept = { terms: [], own: 0, phrases: [], weight: 0 };
    let ownWeight = 0;
    for (const term of own) {
      const id = this.#postings.termId(term);
      const idf = id === undefined ? 0 : this.#idf(id);
      if (id === undefined || idf === 0) continue;
      scored.terms.push({ id, idf: idf * factor });
      scored.own++;
      ownWeight += idf * factor;
    }
    let synonymWeight = 0;
    for (const phrase of this.#ranking.wholeSynonyms ? synonyms : synonyms.flatMap((words) => words.map((word) => [word]))) {
      const ids = phrase.map((term) => this.#postings.termId(term));
      const idfs = ids.map((id) => (id === undefined ? 0 : this.#idf(id)));
      if (idfs.some((idf) => idf === 0)) continue;
      const terms = ids.map((id, i) => ({ id: id!, idf: (ownWeight > 0 && ids.length > 1 ? ownWeight / ids.length : idfs[i]! * factor) * SYNONYM_WEIGHT }));
      if (terms.length === 1) scored.terms.push(terms[0]!);
      else scored.phrases.push(terms);
      synonymWeight = Math.max(synonymWeight, terms.reduce((sum, term) => sum + term.idf, 0));
    }
    scored.weight = Math.max(ownWeight, synonymWeight);
    return scored;
  }

  /** The terms by first character and length (for a typing slip's reading), built at the first one after terms were added. */
  readonly #termsByStart = new Map<string, { term: string; id: number }[]>();
  #termsByStartCount = 0;

  /** The datastore's words, as a reading of a question's unknown word looks them up. */
  readonly #vocabulary: Vocabulary = {
    frequency: (term) => {
      const id = this.#postings.termId(term);
      return id === undefined ? 0 : this.#postings.documentFrequency(id);
    },
    forEachTerm: (initial, min, max, each) => {
      const postings = this.#postings;
      if (this.#termsByStart.size === 0 || this.#termsByStartCount !== postings.termCount) {
        this.#termsByStart.clear();
        postings.forEachTerm((term, id) => {
          const key = `${term[0]}${term.length}`;
          const list = this.#termsByStart.get(key) ?? [];
          list.push({ term, id });
          this.#termsByStart.set(key, list);
        });
        this.#termsByStartCount = postings.termCount;
      }
      for (let length = min; length <= max; length++) for (const { term, id } of this.#termsByStart.get(`${initial}${length}`) ?? []) each(term, postings.documentFrequency(id));
    },
    adjacent: (term, first, second) => {
      const id = this.#postings.termId(term);
      if (id === undefined) return false;
      // Both are letters only (readings.ts): nothing to escape.
      const together = new RegExp(`(?<![\\p{L}\\d])${first}[\\s-]+${second}(?![\\p{L}\\d])`, 'iu');
      let checked = 0;
      let found = false;
      this.#postings.forEachPosting(id, (key) => {
        if (found || checked++ >= ADJACENT_CHECKED) return;
        const { fragment } = this.#postings.value(key)!;
        found = together.test(fragment.text) || (fragment.section ?? []).some((title) => together.test(title));
      });
      return found;
    },
  };

  /** Whether some fragment holds every one of `terms`. */
  #heldTogether(terms: readonly string[]): boolean {
    const ids = [...new Set(terms.map((term) => this.#postings.termId(term)))];
    if (ids.some((id) => id === undefined)) return false;
    const { phraseCounts } = this.#scratch(this.#postings.keyLimit);
    const touched: number[] = [];
    for (const id of ids) {
      this.#postings.forEachPosting(id!, (key) => {
        if (phraseCounts[key] === 0) touched.push(key);
        phraseCounts[key]!++;
      });
    }
    let found = false;
    for (const key of touched) {
      if (phraseCounts[key] === ids.length) found = true;
      phraseCounts[key] = 0;
    }
    return found;
  }

  #idf(id: number): number {
    const matching = this.#postings.documentFrequency(id);
    if (matching === 0) return 0;
    const total = this.#postings.size;
    return Math.log(1 + (total - matching + 0.5) / (matching + 0.5));
  }

  // Per-fragment sums of a query, kept between queries (all zero between them): a query allocates no array as long as the index.
  #scores = new Float64Array(0);
  #conceptScores = new Float64Array(0);
  #phraseScores = new Float64Array(0);
  #phraseCounts = new Uint8Array(0);
  #headingWeights = new Float64Array(0);
  #inHeading = new Uint8Array(0);

  #scratch(length: number): { scores: Float64Array; conceptScores: Float64Array; phraseScores: Float64Array; phraseCounts: Uint8Array; headingWeights: Float64Array; inHeading: Uint8Array } {
    if (this.#scores.length < length) {
      const room = length + (length >> 2);
      this.#scores = new Float64Array(room);
      this.#conceptScores = new Float64Array(room);
      this.#phraseScores = new Float64Array(room);
      this.#phraseCounts = new Uint8Array(room);
      this.#headingWeights = new Float64Array(room);
      this.#inHeading = new Uint8Array(room);
    }
    return {
      scores: this.#scores,
      conceptScores: this.#conceptScores,
      phraseScores: this.#phraseScores,
      phraseCounts: this.#phraseCounts,
      headingWeights: this.#headingWeights,
      inHeading: this.#inHeading,
    };
  }

  #analysed: AnalysedFragments | undefined;
  #analysedTermIds = new Int32Array(0);

  /** The map from `analysed`'s term ids to this index's, kept while its slices come in. */
  #termIdsFor(analysed: AnalysedFragments): Int32Array {
    if (this.#analysed !== analysed) {
      this.#analysed = analysed;
      this.#analysedTermIds = new Int32Array(analysed.termCount).fill(-1);
    }
    return this.#analysedTermIds;
  }
}
