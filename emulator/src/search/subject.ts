import type { FragmentRow } from '../store/records.js';
import type { Concept } from './terms.js';
import { indexedText, searchTerms, tokenize } from './terms.js';

// Whether a passage is about what a question asks, or only shares a side word with it or
// mentions its words. A question's subject is its telling words (not everyday ones) that the
// datastore holds; a passage holds the subject when it holds the most telling of them (the
// rarest), or two of them, in its own words: a word the passage has only inside quotation
// marks or a string in code is an example or a message it quotes ('"How do I reset my
// password?" and "reset password" are counted together'), not what it speaks of.

/** Text in double quotation marks, or in single ones that no letter touches from outside (a string in code, not an apostrophe). */
const QUOTATION = /"[^"\n]{1,300}"|“[^”\n]{1,300}”|(?<![\p{L}\d])'[^'\n]{1,300}'(?![\p{L}\d])/gu;

/** The telling words of a question, most telling first, those no passage holds, and the terms the question itself quotes (which a passage's quotation may hold). */
export interface Subject {
  words: readonly Concept[];
  heldNowhere: ReadonlySet<Concept>;
  quoted: ReadonlySet<string>;
}

/** A question's subject from its concepts the datastore holds, most telling (heaviest) first; `heldNowhere`: those no passage holds whole. */
export function subjectOf(question: string, heaviestFirst: readonly Concept[], heldNowhere: ReadonlySet<Concept> = new Set()): Subject {
  const quoted = new Set(searchTerms([...question.matchAll(QUOTATION)].map(([span]) => span).join('\n')));
  return { words: heaviestFirst.filter((concept) => !concept.isLight), heldNowhere, quoted };
}

/**
 * The pairs of telling words a question writes next to each other ("free trial", "API quota"), each pair naming one
 * thing. Single words only: not a phrase of the synonym list, nor a word with synonyms.
 */
export function writtenTogether(question: string, concepts: readonly Concept[]): [Concept, Concept][] {
  const byWord = new Map(concepts.filter((concept) => !concept.isLight && concept.synonyms.length === 0 && concept.own === 1).map((concept) => [concept.words, concept]));
  const words = tokenize(question);
  const pairs: [Concept, Concept][] = [];
  for (let i = 0; i + 1 < words.length; i++) {
    const first = byWord.get(words[i]!);
    const second = byWord.get(words[i + 1]!);
    if (first && second && first !== second) pairs.push([first, second]);
  }
  return pairs;
}

/** Whether `fragment` holds the subject: the most telling word, or two of them, in its own words or its titles. */
export function holdsSubject(fragment: Pick<FragmentRow, 'text' | 'section'>, { words, heldNowhere, quoted }: Subject): boolean {
  // A question of one telling word is about it, unless no passage holds it as the question means it.
  if (words.length < 2) return words.length === 0 || !heldNowhere.has(words[0]!);
  const titles = (fragment.section ?? []).join('\n');
  const own = new Set(searchTerms(`${indexedText(fragment.text.replace(QUOTATION, ' '))}\n${titles}`));
  let all: Set<string> | undefined;
  const holds = (concept: Concept) => {
    if (heldNowhere.has(concept)) return false;
    // A word the question quotes may be found in a quotation: a message the question asks about.
    const terms = concept.terms.slice(0, concept.own).some((term) => quoted.has(term)) ? (all ??= new Set(searchTerms(`${indexedText(fragment.text)}\n${titles}`))) : own;
    return concept.terms.slice(0, concept.own).some((term) => terms.has(term)) || concept.synonyms.some((phrase) => phrase.every((term) => terms.has(term)));
  };
  if (holds(words[0]!)) return true;
  let held = 0;
  for (const concept of words.slice(1)) if (holds(concept) && ++held === 2) return true;
  return false;
}
