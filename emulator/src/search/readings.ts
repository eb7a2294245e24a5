import { looksLikeName, questionTerms, searchTerm, type QuestionWord } from './terms.js';

// A question's word the datastore never uses, read as what it does hold, as search engines read
// one: joined with its neighbour ("cloud flare": cloudflare), split in two words the text writes
// side by side ("setup": set up), or spelled as a word the documents use ("netlfy": netlify).
// Only when the reading is close and confident; never for a number, a code or a name that could
// be real. Each looks the word up in the datastore's vocabulary, and only for an unknown word.

/** What a reading needs to know of a datastore's words. */
export interface Vocabulary {
  /** How many fragments hold `term` (0: none). */
  frequency(term: string): number;
  /** Calls `each` with every term the fragments hold that starts with `initial` and has `min` to `max` characters, and how many fragments hold it. */
  forEachTerm(initial: string, min: number, max: number, each: (term: string, frequency: number) => void): void;
  /** Whether a fragment holding `term` writes `first` and `second` next to each other ("set up", "set-up"). */
  adjacent(term: string, first: string, second: string): boolean;
}

/** A word made of letters only: a reading never touches numbers, versions or code. */
const LETTERS = /^\p{L}+$/u;
/** The shortest term spelled again, and the length from which two slips are allowed (one below it). */
const MIN_CORRECTED_LENGTH = 5;
const TWO_SLIPS_LENGTH = 8;
/** A word is spelled as one at least this many of the datastore's fragments hold: one the documents use. */
const MIN_FREQUENCY = 2;
/**
 * A typing slip is read only in a question holding at most this many words the datastore holds:
 * there the unknown word is much of what is asked; in a longer one the words held carry the search
 * and a guess finds as much noise as help (on SciFact's claims, "florescent" read as fluorescent
 * put other abstracts first).
 */
const MAX_HELD_FOR_SLIPS = 8;
/** A split's parts have two letters at least; at most this many splits are looked for in the text. */
const MIN_PART = 2;
const SPLITS_CHECKED = 3;

/** The question's words, each one the datastore does not hold read as one it does when a reading is confident (stopwords kept, so "log in" can be joined). */
export function readUnknownWords(words: readonly QuestionWord[], question: string, vocabulary: Vocabulary): QuestionWord[] {
  const known = (terms: readonly string[]) => terms.some((term) => vocabulary.frequency(term) > 0);
  // A word the question writes (not one the tokenizer adds: a version's "nodeversion"), of letters, not an acronym or a code.
  const unknown = (word: QuestionWord | undefined) =>
    word !== undefined && word.terms.length > 0 && LETTERS.test(word.written) && !/^[A-Z]{2,}/.test(word.written) && question.includes(word.written) && !known(word.terms);
  // Counted at the first slip looked for: a question whose words are all held costs no more lookups.
  let slipsRead: boolean | undefined;
  const readsSlips = () => (slipsRead ??= new Set(words.filter((word) => word.terms.length > 0 && known(word.terms)).map((word) => word.terms[0])).size <= MAX_HELD_FOR_SLIPS);
  const read: QuestionWord[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (!unknown(word)) {
      read.push(word);
      continue;
    }
    const joined = joinedWith(read.at(-1), word, words[i + 1], vocabulary);
    if (joined) {
      if (joined.withPrevious) read.pop();
      else i++;
      read.push(joined.word);
      continue;
    }
    read.push(...(splitInTwo(word, vocabulary) ?? [(readsSlips() ? spelledAgain(word, question, vocabulary) : undefined) ?? word]));
  }
  return read;
}

/** The word joined with the word before or after it into one the datastore holds ("log in": login), the more frequent of the two. */
function joinedWith(previous: QuestionWord | undefined, word: QuestionWord, next: QuestionWord | undefined, vocabulary: Vocabulary): { word: QuestionWord; withPrevious: boolean } | undefined {
  let best: { word: QuestionWord; withPrevious: boolean; frequency: number } | undefined;
  for (const [first, second, withPrevious] of [[previous, word, true], [word, next, false]] as const) {
    // Only two words as written: not one already read, nor a number.
    if (!first || !second || first.read !== first.written || second.read !== second.written || !LETTERS.test(first.written) || !LETTERS.test(second.written)) continue;
    const read = `${first.written}${second.written}`.toLowerCase();
    const term = searchTerm(read);
    const frequency = term ? vocabulary.frequency(term) : 0;
    if (term && frequency > (best?.frequency ?? 0)) best = { word: { written: `${first.written} ${second.written}`, read, terms: [term] }, withPrevious, frequency };
  }
  return best && { word: best.word, withPrevious: best.withPrevious };
}

/**
 * The word as two the datastore's text writes next to each other ("setup": "set up";
 * "webcomponent": "web component"), each a word it holds or a stopword, one at least it holds:
 * of the splits, the one whose rarer held word is the more frequent that the text shows.
 */
function splitInTwo(word: QuestionWord, vocabulary: Vocabulary): QuestionWord[] | undefined {
  const lower = word.written.toLowerCase();
  const splits: { first: string; second: string; rarer: string; frequency: number }[] = [];
  for (let at = MIN_PART; at <= lower.length - MIN_PART; at++) {
    const parts = [lower.slice(0, at), lower.slice(at)];
    const terms = parts.map((part) => searchTerm(part));
    // A part that gives no term is a stopword (parts have two letters or more); one that does must be held.
    const frequencies = terms.map((term) => (term === null ? Infinity : vocabulary.frequency(term)));
    if (frequencies.some((frequency) => frequency === 0) || frequencies.every((frequency) => frequency === Infinity)) continue;
    const rarer = frequencies[0]! <= frequencies[1]! ? 0 : 1;
    splits.push({ first: parts[0]!, second: parts[1]!, rarer: terms[rarer]!, frequency: frequencies[rarer]! });
  }
  splits.sort((a, b) => b.frequency - a.frequency);
  const split = splits.slice(0, SPLITS_CHECKED).find(({ rarer, first, second }) => vocabulary.adjacent(rarer, first, second));
  return split && [split.first, split.second].map((part) => ({ written: word.written, read: part, terms: questionTerms(part) }));
}

/**
 * The word spelled as a word the datastore holds that differs from it as a typing slip does: a
 * letter left out ("netlfy": netlify), two neighbours swapped ("recieve"), a letter typed twice;
 * one slip in a term of five letters or more, two from eight, the first letter kept. Of those at
 * the fewest slips, the most frequent, when no other is as frequent (else no reading). Never a
 * letter changed for another, nor one dropped: "threat" is not "thread", "timer" not "time" (a
 * real word the documents do not use is left as it is); never for a name (capitalised inside the
 * sentence): "Paris" is not "part".
 */
function spelledAgain(word: QuestionWord, question: string, vocabulary: Vocabulary): QuestionWord | undefined {
  const term = word.terms[0]!;
  if (word.terms.length !== 1 || term.length < MIN_CORRECTED_LENGTH || looksLikeName(word.written, question)) return undefined;
  const limit = term.length >= TWO_SLIPS_LENGTH ? 2 : 1;
  let best: { term: string; slips: number; frequency: number; tied: boolean } | undefined;
  vocabulary.forEachTerm(term[0]!, term.length - limit, term.length + limit, (candidate, frequency) => {
    if (frequency < MIN_FREQUENCY) return;
    const slips = typingSlips(term, candidate, limit);
    if (slips > limit) return;
    if (!best || slips < best.slips || (slips === best.slips && frequency > best.frequency)) best = { term: candidate, slips, frequency, tied: false };
    else if (slips === best.slips && frequency === best.frequency) best.tied = true;
  });
  return best && !best.tied ? { written: word.written, read: best.term, terms: [best.term] } : undefined;
}

/** Letters counted by their code's last six bits (letters that share them are counted together: the test only lets more through). */
const LETTER_COUNTS = new Int32Array(64);

/**
 * How many typing slips turn `typed` into `word`: a letter left out (one `word` has more), two
 * neighbours swapped, a letter typed twice; `limit + 1` once there are more, or when another edit
 * (a letter changed, another dropped) is needed.
 */
export function typingSlips(typed: string, word: string, limit: number): number {
  const beyond = limit + 1;
  // A slip adds a letter, takes a doubled one away or swaps two: the words' letters, counted, differ by one letter a slip at most.
  LETTER_COUNTS.fill(0);
  for (let i = 0; i < typed.length; i++) LETTER_COUNTS[typed.charCodeAt(i) & 63]!++;
  for (let i = 0; i < word.length; i++) LETTER_COUNTS[word.charCodeAt(i) & 63]!--;
  let differ = 0;
  for (const count of LETTER_COUNTS) differ += Math.abs(count);
  if (differ > limit) return beyond;
  const width = word.length + 1;
  // Three rolling rows of the table: slips from typed's first i letters to word's first j.
  let before = new Int32Array(width);
  let previous = Int32Array.from({ length: width }, (_, j) => Math.min(j, beyond));
  let row = new Int32Array(width);
  for (let i = 1; i <= typed.length; i++) {
    let smallest = beyond;
    for (let j = 0; j <= word.length; j++) {
      let slips = beyond;
      if (j > 0 && typed[i - 1] === word[j - 1]) slips = previous[j - 1]!;
      if (j > 0) slips = Math.min(slips, row[j - 1]! + 1);
      if (i > 1 && typed[i - 1] === typed[i - 2]) slips = Math.min(slips, previous[j]! + 1);
      if (i > 1 && j > 1 && typed[i - 1] === word[j - 2] && typed[i - 2] === word[j - 1]) slips = Math.min(slips, before[j - 2]! + 1);
      row[j] = Math.min(slips, beyond);
      smallest = Math.min(smallest, row[j]!);
    }
    if (smallest > limit) return beyond;
    [before, previous, row] = [previous, row, before];
  }
  return previous[word.length]!;
}
