// Where an agent's answer stops being a source and becomes noise, measured on judged public
// sets: half of each set's questions keep what answers them in the datastore, the other half
// have it taken out (SciFact's abstracts judged relevant to them, StackFAQ's threads they were
// written for), so nothing relevant is there for them. For a line, how often the best passage of
// a question that can be answered is a right one at or above it, how often it falls below
// (the agent would refuse), and how often a question with nothing relevant is answered.
import { readFileSync } from 'node:fs';
import { extractMarkdown } from '../../emulator/src/ingest/markdown.js';
import { extractPlainText } from '../../emulator/src/ingest/text.js';
import { fragmentsOf } from '../../emulator/src/ingest-queue.js';
import { FragmentIndex } from '../../emulator/src/search/fragment-index.js';
import { documentText, type SciFact } from './scifact.js';

/** A question and the documents that answer it (none in the datastore: nothing relevant is there). */
export interface JudgedQuestion {
  text: string;
  relevant: ReadonlySet<string>;
}

/** A set's datastore and its questions. */
export interface SplitSet {
  name: string;
  documents: { id: string; fragments: ReturnType<typeof fragmentsOf> }[];
  questions: JudgedQuestion[];
}

export interface LineFigures {
  answerable: number;
  /** The best passage is a right document's, at or above the line. */
  rightAbove: number;
  /** The best passage falls below the line: the agent would say it does not know. */
  below: number;
  unanswerable: number;
  /** A question with nothing relevant whose best passage is at or above the line: answered all the same. */
  noiseAbove: number;
}

/** StackFAQ (test/fixtures/stackfaq): the even threads in the datastore as Markdown documents (the question as title, its answers below); every rephrasing asked. */
export function stackFaqSplit(): SplitSet {
  const { threads } = JSON.parse(readFileSync(new URL('../fixtures/stackfaq/stackfaq.json', import.meta.url), 'utf8')) as {
    threads: { question: string; answers: string[]; rephrasings: string[] }[];
  };
  const documents = threads
    .map((thread, i) => ({ id: `thread-${i}`, thread, kept: i % 2 === 0 }))
    .filter(({ kept }) => kept)
    .map(({ id, thread }) => ({ id, fragments: fragmentsOf(extractMarkdown(Buffer.from(`# ${thread.question}\n\n${thread.answers.join('\n\n')}\n`))) }));
  const questions = threads.flatMap((thread, i) => thread.rephrasings.map((text) => ({ text, relevant: new Set(i % 2 === 0 ? [`thread-${i}`] : []) })));
  return { name: 'StackFAQ', documents, questions };
}

/** SciFact: the abstracts judged relevant to its odd claims taken out of the datastore (unless an even claim needs them too); every claim asked. */
export function sciFactSplit(set: SciFact): SplitSet {
  const relevantTo = (id: string) => new Set([...set.judgments.get(id)!].filter(([, grade]) => grade > 0).map(([document]) => document));
  const needed = new Set(set.queries.filter((_, i) => i % 2 === 0).flatMap((query) => [...relevantTo(query.id)]));
  const removed = new Set(set.queries.filter((_, i) => i % 2 === 1).flatMap((query) => [...relevantTo(query.id)].filter((id) => !needed.has(id))));
  const documents = set.corpus.filter((document) => !removed.has(document.id)).map((document) => ({ id: document.id, fragments: fragmentsOf(extractPlainText(Buffer.from(documentText(document)))) }));
  const questions = set.queries.map((query) => {
    const relevant = relevantTo(query.id);
    return { text: query.text, relevant: new Set([...relevant].filter((id) => !removed.has(id))) };
  });
  return { name: 'SciFact', documents, questions };
}

/** The score of each question's best passage (0 for none) and whether its document is a right one, from the emulator's search in process. */
export interface BestPassage {
  answerable: boolean;
  score: number;
  /** The passage's `answerable` (how likely the datastore holds the answer, 0..1). */
  likely: number;
  right: boolean;
}

export function bestPassages(split: SplitSet): BestPassage[] {
  const index = new FragmentIndex();
  for (const { id, fragments } of split.documents) index.replace(id, fragments);
  index.tidy();
  return split.questions.map((question) => {
    const best = index.query(question.text, { topK: 8, standing: true })[0];
    return { answerable: question.relevant.size > 0, score: best?.score ?? 0, likely: best?.answerable ?? 0, right: best !== undefined && question.relevant.has(best.datasourceId) };
  });
}

/** How the questions fare when a best passage scored `line` or more whose `answerable` is `answerableLine` or more is an answer (the others "I don't know"). */
export function lineFigures(best: readonly BestPassage[], line: number, answerableLine = 0): LineFigures {
  const answerable = best.filter((question) => question.answerable);
  const unanswerable = best.filter((question) => !question.answerable);
  const answered = (question: BestPassage) => question.score >= line && question.likely >= answerableLine;
  return {
    answerable: answerable.length,
    rightAbove: answerable.filter((question) => question.right && answered(question)).length,
    below: answerable.filter((question) => !answered(question)).length,
    unanswerable: unanswerable.length,
    noiseAbove: unanswerable.filter(answered).length,
  };
}
