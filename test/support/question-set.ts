// The newcomer question sets (test/fixtures/questions), asked of an agent, and
// the figures the test and the bench report: recall@1 and @3 (the right
// document first, or among the first three sources), mean reciprocal rank, how
// many answers were "I don't know", whether the answer's markers cite a right
// document, and how many questions the documents do not cover were answered.
import { readFileSync } from 'node:fs';

export interface AnsweredQuestion {
  question: string;
  /** Documents (datasource names) that answer it; any of them counts as right. */
  documents: string[];
  /** The section that holds the answer. */
  heading: string;
  /** What kind of question it is (the blind sets: how-to, figure, list, troubleshooting, yes-no; the second also what-is, which). */
  kind?: string;
}

export interface QuestionSet {
  answered: AnsweredQuestion[];
  uncovered: string[];
}

/**
 * The question sets of test/fixtures/questions: `newcomer-questions` (the one the
 * ranking was tuned on), `newcomer-holdout` (never tuned on: how the search does
 * on questions it was not fitted to), `newcomer-blind` (written by someone
 * who had not read the docs, judged against them afterwards, never tuned on) and
 * `newcomer-blind2` (a second one written the same way, committed before it was
 * first asked) and `newcomer-headings` (written from README's headings alone, before
 * reading the docs, judged afterwards, never tuned on).
 */
export const QUESTION_SETS = ['newcomer-questions', 'newcomer-holdout', 'newcomer-blind', 'newcomer-blind2', 'newcomer-headings'] as const;
export type QuestionSetName = (typeof QUESTION_SETS)[number];

/** Each set's name in reports, as docs/benchmarks.md names its row. */
export const QUESTION_SET_TITLES: Record<QuestionSetName, string> = {
  'newcomer-questions': 'tuned',
  'newcomer-holdout': 'held out',
  'newcomer-blind': 'blind',
  'newcomer-blind2': 'blind, second',
  'newcomer-headings': 'from the headings',
};

export function loadQuestionSet(name: QuestionSetName = 'newcomer-questions'): QuestionSet {
  return JSON.parse(readFileSync(new URL(`../fixtures/questions/${name}.json`, import.meta.url), 'utf8')) as QuestionSet;
}

/** What the agent gave for one question. */
export interface Asked {
  question: string;
  /** Names of the cited sources, best first. */
  sources: string[];
  scores: number[];
  answer: string;
  /** The answer says it does not know (it may still list the sources it looked at). */
  dontKnow: boolean;
  /** The answer quotes the closest passage found, none having scored as a source. */
  closest: boolean;
}

export interface Figures {
  questions: number;
  recallAt1: number;
  recallAt3: number;
  mrr: number;
  /** Answered questions that got "I don't know". */
  dontKnow: number;
  /** Answered questions that got the closest passage found. */
  closest: number;
  /** Answered questions whose answer cites (with a `[n]` marker) an expected document. */
  citesRight: number;
  /** Answered questions whose first marker cites an expected document: the lead quote comes from it. */
  leadsRight: number;
  /** Uncovered questions that got "I don't know" (all of them is right). */
  uncoveredDontKnow: number;
  /** Uncovered questions that got the closest passage found (a hedged answer, not a cited one). */
  uncoveredClosest: number;
  uncovered: number;
}

/** The sources an answer's `[n]` markers cite, in the order they first appear. */
export function citedInAnswer(asked: Pick<Asked, 'answer' | 'sources'>): string[] {
  const cited: string[] = [];
  for (const [, number] of asked.answer.matchAll(/(?<!`)\[(\d{1,3})\](?!`)/g)) {
    const source = asked.sources[Number(number) - 1];
    if (source !== undefined && !cited.includes(source)) cited.push(source);
  }
  return cited;
}

/** Where the first right document is among the sources (1-based), 0 when absent. */
export function rankOf(asked: Pick<Asked, 'sources'>, expected: AnsweredQuestion): number {
  const index = asked.sources.findIndex((name) => expected.documents.includes(name));
  return index + 1;
}

export function figuresOf(set: QuestionSet, answered: readonly Asked[], uncovered: readonly Asked[]): Figures {
  const ranks = set.answered.map((expected, i) => rankOf(answered[i]!, expected));
  const share = (count: number) => count / ranks.length;
  return {
    questions: ranks.length,
    recallAt1: share(ranks.filter((rank) => rank === 1).length),
    recallAt3: share(ranks.filter((rank) => rank >= 1 && rank <= 3).length),
    mrr: share(ranks.reduce((sum, rank) => sum + (rank ? 1 / rank : 0), 0)),
    dontKnow: answered.filter((asked) => asked.dontKnow).length,
    closest: answered.filter((asked) => asked.closest).length,
    citesRight: set.answered.filter((expected, i) => citedInAnswer(answered[i]!).some((name) => expected.documents.includes(name))).length,
    leadsRight: set.answered.filter((expected, i) => expected.documents.includes(citedInAnswer(answered[i]!)[0] ?? '')).length,
    uncoveredDontKnow: uncovered.filter((asked) => asked.dontKnow).length,
    uncoveredClosest: uncovered.filter((asked) => asked.closest).length,
    uncovered: uncovered.length,
  };
}

/** Asks every question of the set of the agent (JSON answers, each in a conversation of its own). */
export async function askQuestionSet(
  service: { url: string; apiKey: string; agentId: string },
  set: QuestionSet,
): Promise<{ answered: Asked[]; uncovered: Asked[] }> {
  const ask = async (question: string): Promise<Asked> => {
    const response = await fetch(`${service.url}/agents/${service.agentId}/query`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${service.apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: question }),
    });
    if (!response.ok) throw new Error(`asking ${JSON.stringify(question)}: ${response.status} ${await response.text()}`);
    const body = (await response.json()) as { answer: string; sources: { datasource_name?: string; score?: number }[] };
    return {
      question,
      sources: body.sources.map((source) => source.datasource_name ?? ''),
      scores: body.sources.map((source) => source.score ?? 0),
      answer: body.answer,
      dontKnow: /^I don't know/.test(body.answer),
      closest: /^The closest I found/.test(body.answer),
    };
  };
  const answered: Asked[] = [];
  for (const { question } of set.answered) answered.push(await ask(question));
  const uncovered: Asked[] = [];
  for (const question of set.uncovered) uncovered.push(await ask(question));
  return { answered, uncovered };
}

/** The scores of the cited sources: those that are an expected document of their question, and the others. */
export function citedScores(set: QuestionSet, answered: readonly Asked[]): { right: number[]; wrong: number[] } {
  const right: number[] = [];
  const wrong: number[] = [];
  set.answered.forEach((expected, i) => answered[i]!.sources.forEach((source, n) => (expected.documents.includes(source) ? right : wrong).push(answered[i]!.scores[n]!)));
  return { right, wrong };
}

export const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
