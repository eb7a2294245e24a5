import { indexedText, indexTerms, termPairs, tokenize } from './terms.js';

// A fragment's search fields, analysed into index terms before the index takes them: the words
// of each field (as the index's tokenizer splits it) and the terms each word gives. A reader
// thread analyses a large file's fragments (the tokenizing and stemming that held the server's
// thread for hundreds of milliseconds), and hands over only numbers in a few flat arrays and
// one string of distinct terms: copied between threads in one piece, where millions of small
// strings and arrays would take the server's thread as long to rebuild as to compute.

/** The fields of the search index, in the order their words are kept. */
export const FIELDS = ['text', 'heading', 'section', 'pairs'] as const;
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
  /** Word `w` (distinct per field kind) gives the terms `wordTerms[wordStart[w]]` to `wordTerms[wordStart[w + 1] - 1]`. */
  wordStart: Int32Array;
  wordTerms: Int32Array;
  /** Field `f` of fragment `i` is the words `fieldWords[fieldStart[i * FIELDS.length + f]]` onwards, in reading order. */
  fieldStart: Int32Array;
  fieldWords: Int32Array;
  /** The distinct terms of fragment `i`'s words and section titles (for term frequencies across fragments). */
  distinctStart: Int32Array;
  distinctTerms: Int32Array;
}

/** The field values of a fragment as text (`text`: as `indexedText` gives it), and the sequence of its words' terms (for the phrase field). */
function fieldTexts(text: string, fragment: FragmentFields, sequence: readonly string[][]): Record<Field, string> {
  const titles = fragment.section ?? [];
  return { text, heading: titles[titles.length - 1] ?? '', section: titles.slice(0, -1).join('\n'), pairs: termPairs(sequence).join(' ') };
}

/** A field's words: the phrase field is pairs joined by spaces, the others text. */
function fieldWordsOf(text: string, field: Field): string[] {
  return field === 'pairs' ? text.split(' ') : tokenize(text);
}

/** A word's index terms: a pair is its own term, another word its stemmed forms (`indexTerms`). */
function wordTermsOf(word: string, field: Field): string[] {
  if (field === 'pairs') return word ? [word] : [];
  return indexTerms(word);
}

/** Analyses fragments for the index: their fields' words and the terms each gives (see `FragmentTerms`). */
export function analyseFragments(fragments: readonly FragmentFields[]): FragmentTerms {
  const termIds = new Map<string, number>();
  const terms: string[] = [];
  const termStart: number[] = [0];
  // Words are distinct per kind: a pair `a_b` and a word `a_b` of the text give different terms.
  const wordIds = [new Map<string, number>(), new Map<string, number>()];
  const wordTermLists: number[][] = [];
  const wordStart: number[] = [0];
  const wordTerms: number[] = [];
  const fieldStart: number[] = [];
  const fieldWords: number[] = [];
  const distinctStart: number[] = [0];
  const distinctTerms: number[] = [];
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
  const wordId = (word: string, field: Field): number => {
    const ids = wordIds[field === 'pairs' ? 1 : 0]!;
    let id = ids.get(word);
    if (id === undefined) {
      id = wordTermLists.length;
      ids.set(word, id);
      const list = wordTermsOf(word, field).map(termId);
      wordTermLists.push(list);
      for (const term of list) wordTerms.push(term);
      wordStart.push(wordTerms.length);
    }
    return id;
  };
  const termsOf = (id: number): string[] => wordTermLists[id]!.map((term) => terms[term]!);

  for (const fragment of fragments) {
    // A table's column names once, not in every row (`indexedText`).
    const text = indexedText(fragment.text);
    const textWords = fieldWordsOf(text, 'text').map((word) => wordId(word, 'text'));
    // The text's words that give terms, in reading order: what the phrase field pairs.
    const sequence = textWords.filter((id) => wordTermLists[id]!.length > 0).map(termsOf);
    const texts = fieldTexts(text, fragment, sequence);
    const distinct = new Set<number>();
    for (const field of FIELDS) {
      fieldStart.push(fieldWords.length);
      const words = field === 'text' ? textWords : fieldWordsOf(texts[field], field).map((word) => wordId(word, field));
      for (const word of words) {
        fieldWords.push(word);
        if (field !== 'pairs') for (const term of wordTermLists[word]!) distinct.add(term);
      }
    }
    for (const term of distinct) distinctTerms.push(term);
    distinctStart.push(distinctTerms.length);
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
    distinctStart: Int32Array.from(distinctStart),
    distinctTerms: Int32Array.from(distinctTerms),
  };
}

/**
 * Reads analysed fragments for the index, building each word's list of terms once, when first
 * met (a large file's words are met a slice at a time, never all at once).
 */
export class AnalysedFragments {
  readonly #data: FragmentTerms;
  readonly #terms: (string | undefined)[] = [];
  readonly #words: (string[] | undefined)[] = [];

  constructor(data: FragmentTerms) {
    this.#data = data;
  }

  get count(): number {
    return this.#data.count;
  }

  /** The words of field `field` of fragment `index`, each as its list of terms (the same list for the same word). */
  words(index: number, field: Field): string[][] {
    const { fieldStart, fieldWords } = this.#data;
    const at = index * FIELDS.length + FIELDS.indexOf(field);
    const words: string[][] = [];
    for (let i = fieldStart[at]!; i < fieldStart[at + 1]!; i++) words.push(this.#word(fieldWords[i]!));
    return words;
  }

  /** The distinct terms of fragment `index`'s words and section titles. */
  distinctTerms(index: number): string[] {
    const { distinctStart, distinctTerms } = this.#data;
    const terms: string[] = [];
    for (let i = distinctStart[index]!; i < distinctStart[index + 1]!; i++) terms.push(this.#term(distinctTerms[i]!));
    return terms;
  }

  #word(id: number): string[] {
    let terms = this.#words[id];
    if (!terms) {
      const { wordStart, wordTerms } = this.#data;
      terms = [];
      for (let i = wordStart[id]!; i < wordStart[id + 1]!; i++) terms.push(this.#term(wordTerms[i]!));
      this.#words[id] = terms;
    }
    return terms;
  }

  #term(id: number): string {
    let term = this.#terms[id];
    if (term === undefined) {
      const { termText, termStart } = this.#data;
      term = termText.slice(termStart[id], termStart[id + 1]);
      this.#terms[id] = term;
    }
    return term;
  }
}
