import { searchTerms } from '../search.js';
import type { Retrieved } from './retrieve.js';

// Without a language model, the emulator answers extractively: the sentences
// of the sources that best match the question, each followed by the marker of
// its source ([1] is the first source), in markdown.

/** Sentences quoted from each source, at most. */
const SENTENCES_PER_SOURCE = 2;
/** Sources quoted, at most. */
const SOURCES_QUOTED = 3;

export const NO_ANSWER = "I don't know: nothing in this agent's datastores matches the question.";

const sentenceSegmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/** The sentences of `text`, one line each. Paragraphs, list items and table rows end a sentence; wrapped lines do not. */
export function sentencesOf(text: string): string[] {
  const sentences: string[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split('\n').map((line) => line.trim()).filter(Boolean);
    const units: string[] = [];
    for (const line of lines) {
      const startsItem = /^([-*+•|]|\d+[.)]\s|#)/.test(line);
      if (units.length === 0 || startsItem || /^([-*+•|]|\d+[.)]\s|#)/.test(units[units.length - 1]!)) units.push(line);
      else units[units.length - 1] += ` ${line}`;
    }
    for (const unit of units) {
      for (const { segment } of sentenceSegmenter.segment(unit)) {
        const sentence = segment.replace(/\s+/g, ' ').trim();
        if (sentence.length > 0) sentences.push(sentence);
      }
    }
  }
  return sentences;
}

/** Code, commands and configuration read badly when quoted as a sentence. */
function looksLikeCode(sentence: string): boolean {
  const symbols = sentence.match(/[{}()[\];=<>`$\\|]/g)?.length ?? 0;
  return symbols / sentence.length > 0.04 || /^(import|export|const|let|var|npm|npx|\$|\/\/)\s/.test(sentence);
}

/** The sentences worth quoting: prose of a few words, when the fragment has any; else whatever it has. */
function quotable(sentences: string[]): string[] {
  const prose = sentences.filter((sentence) => sentence.split(' ').length >= 4 && !looksLikeCode(sentence));
  if (prose.length > 0) return prose;
  const long = sentences.filter((sentence) => sentence.split(' ').length >= 4);
  return long.length > 0 ? long : sentences;
}

/** How many of the question's terms a sentence holds. */
function overlap(sentence: string, questionTerms: ReadonlySet<string>): number {
  let count = 0;
  for (const term of searchTerms(sentence)) if (questionTerms.has(term)) count++;
  return count;
}

/** The answer text for `question` from the sources' fragments, with `[n]` markers. */
export function composeAnswer(question: string, sources: readonly Retrieved[]): string {
  if (sources.length === 0) return NO_ANSWER;
  const questionTerms = new Set(searchTerms(question));
  const points: { index: number; text: string }[] = [];
  for (const [index, hit] of sources.slice(0, SOURCES_QUOTED).entries()) {
    // Headings, labels and code are no answer: quote prose of a few words when there is some.
    const sentences = quotable(sentencesOf(hit.fragment.text));
    const ranked = sentences
      .map((sentence, position) => ({ sentence, position, score: overlap(sentence, questionTerms) }))
      .filter((entry) => entry.score > 0)
      .sort((a, b) => b.score - a.score || a.position - b.position)
      .slice(0, SENTENCES_PER_SOURCE)
      .sort((a, b) => a.position - b.position);
    const chosen = ranked.length > 0 ? ranked.map((entry) => entry.sentence) : sentences.slice(0, 1);
    if (chosen.length === 0) continue;
    points.push({ index, text: `${chosen.join(' ')} [${index + 1}]` });
  }
  if (points.length === 0) return NO_ANSWER;
  if (points.length === 1) return `According to ${sources[points[0]!.index]!.datasource.name}: ${points[0]!.text}`;
  return `Here is what the documents say:\n\n${points.map((point) => `- ${point.text}`).join('\n')}`;
}

/**
 * The answer cut into pieces the size of a model's deltas (a word or two,
 * with its spacing), so a stream looks like one.
 */
export function answerPieces(answer: string): string[] {
  const pieces: string[] = [];
  const words = answer.match(/\s*\S+/g) ?? [];
  for (let i = 0; i < words.length; i += 2) pieces.push(words.slice(i, i + 2).join(''));
  const trailing = answer.match(/\s+$/)?.[0];
  if (trailing && pieces.length) pieces[pieces.length - 1] += trailing;
  return pieces.length ? pieces : [answer];
}
