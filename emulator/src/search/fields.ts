import { indexedText, indexTerms, tokenize } from './terms.js';

// A fragment's search fields, analysed into index terms before the index takes them: the words
// of each field (as the index's tokenizer splits it) and the terms each word gives. A reader
// thread analyses a large file's fragments (the tokenizing and stemming that held the server's
// thread for hundreds of milliseconds), and hands over only numbers in a few flat arrays and
// one string of distinct terms: copied between threads in one piece, where millions of small
// strings and arrays would take the server's thread as long to rebuild as to compute.

/** The fields of the search index, in the order their words are kept. */
export const FIELDS = ['text', 'heading', 'section'] as const;
export type Field = (typeof FIELDS)[number];

/** What one fragment needs to be analysed: its text and the titles of the sections around it. */
export interface FragmentFields {
  text: string;
  section?: string[];
}

/** Fragments analysed (`analyseFragments`): plain data, so it crosses threads as it is. */
export interface FragmentTerms {
  /** Number of fragments. */
  count: number;
  /** The distinct terms end to end; term `t` runs from `termStart[t]` to `termStart[t + 1]`. */
  termText: string;
  termStart: Int32Array;
  /** Word `w` gives the terms `wordTerms[wordStart[w]]` to `wordTerms[wordStart[w + 1] - 1]` (none for a stopword). */
  wordStart: Int32Array;
  wordTerms: Int32Array;
  /** Field `f` of fragment `i` is the words `fieldWords[fieldStart[i * FIELDS.length + f]]` onwards, in reading order. */
  fieldStart: Int32Array;
  fieldWords: Int32Array;
}

/** The field values of a fragment as text (`text`: as `indexedText` gives it). */
function fieldTexts(text: string, fragment: FragmentFields): Record<Field, string> {
  const titles = fragment.section ?? [];
  return { text, heading: titles[titles.length - 1] ?? '', section: titles.slice(0, -1).join('\n') };
}

/** Analyses fragments for the index: their fields' words and the terms each gives (see `FragmentTerms`). */
export function analyseFragments(fragments: readonly FragmentFields[]): FragmentTerms {
  const termIds = new Map<string, number>();
  const terms: string[] = [];
  const termStart: number[] = [0];
  const wordIds = new Map<string, number>();
  const wordStart: number[] = [0];
  const wordTerms: number[] = [];
  const fieldStart: number[] = [];
  const fieldWords: number[] = [];
  let termLength = 0;

  const termId = (term: string): number => {
    let id = termIds.get(term);
    if (id === undefined) {
      id = terms.length;
      termIds.set(term, id);
      terms.push(term);
      termLength += term.length;
      termStart.push(termLength);
    }
    return id;
  };
  const wordId = (word: string): number => {
    let id = wordIds.get(word);
    if (id === undefined) {
      id = wordStart.length - 1;
      wordIds.set(word, id);
      for (const term of indexTerms(word)) wordTerms.push(termId(term));
      wordStart.push(wordTerms.length);
    }
    return id;
  };

  for (const fragment of fragments) {
    // A table's column names once, not in every row (`indexedText`).
    const texts = fieldTexts(indexedText(fragment.text), fragment);
    for (const field of FIELDS) {
      fieldStart.push(fieldWords.length);
      for (const word of tokenize(texts[field])) fieldWords.push(wordId(word));
    }
  }
  fieldStart.push(fieldWords.length);
  return {
    count: fragments.length,
    termText: terms.join(''),
    termStart: Int32Array.from(termStart),
    wordStart: Int32Array.from(wordStart),
    wordTerms: Int32Array.from(wordTerms),
    fieldStart: Int32Array.from(fieldStart),
    fieldWords: Int32Array.from(fieldWords),
  };
}

/**
 * Analysed fragments as the index reads them: each word as the ids of its terms, and each
 * term's text, made a string only when first asked for (a large file's terms are met a slice at
 * a time, never all at once).
 */
export class AnalysedFragments {
  readonly #data: FragmentTerms;
  readonly #terms: (string | undefined)[] = [];

  constructor(data: FragmentTerms) {
    this.#data = data;
  }

  get count(): number {
    return this.#data.count;
  }

  /** Calls `each` with the word ids of field `field` of fragment `index`, in reading order. */
  forEachWord(index: number, field: number, each: (word: number) => void): void {
    const { fieldStart, fieldWords } = this.#data;
    const at = index * FIELDS.length + field;
    for (let i = fieldStart[at]!; i < fieldStart[at + 1]!; i++) each(fieldWords[i]!);
  }

  /** The term ids a word gives, as `[from, to)` in `termsOfWords`. */
  wordTerms(word: number): [number, number] {
    return [this.#data.wordStart[word]!, this.#data.wordStart[word + 1]!];
  }

  get termsOfWords(): Int32Array {
    return this.#data.wordTerms;
  }

  /** Number of distinct terms. */
  get termCount(): number {
    return this.#data.termStart.length - 1;
  }

  term(id: number): string {
    let term = this.#terms[id];
    if (term === undefined) {
      const { termText, termStart } = this.#data;
      term = termText.slice(termStart[id], termStart[id + 1]);
      this.#terms[id] = term;
    }
    return term;
  }
}
