// The newcomer question sets (test/fixtures/questions: the set the ranking was tuned on, a
// held-out set, a blind one written without reading the docs and one written from README's
// headings alone) asked of the demo agent, with
// the emulator seeded exactly as `npm start` seeds it (README.md and docs/*.md, through
// demo/knowledge-base.ts), over real HTTP. Floors, not goals: the ranking is general BM25F (held
// to a public benchmark in emulator-search-scifact.test.ts), each floor a question or two under
// the figures of bench/emulator-questions.bench.ts on the docs of this commit, and every doc edit
// moves them. A question the documents do not cover may get the closest passage found, said so
// (a score between 0.5 and 0.7): words alone cannot always tell it from a weak right answer; the
// floors count those answered as if the documents covered them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { seedKnowledgeBase } from '../../demo/knowledge-base.js';
import { startEmulator, type CheckedEmulator as RunningEmulator } from '../fixtures/emulator/harness.js';
import { describeSeparation, separation } from '../support/separation.js';
import { askQuestionSet, citedScores, figuresOf, loadQuestionSet, percent, rankOf, type Asked, type Figures, type QuestionSet, type QuestionSetName } from '../support/question-set.js';

let running: RunningEmulator;
before(async () => {
  running = await startEmulator({ port: 0, pace: 0, log: () => {}, rateLimits: { pro: Number.MAX_SAFE_INTEGER } });
  await seedKnowledgeBase(new URL('../../', import.meta.url), { url: running.url, apiKey: running.demo.apiKey, datastoreId: running.demo.datastoreId });
});
after(() => running?.close());

interface Floors {
  recallAt1: number;
  recallAt3: number;
  /** Most answered questions that may get "I don't know". */
  dontKnow: number;
  /** Most uncovered questions that may be answered with a source above the threshold (the closest passage, said so, is not counted). */
  uncoveredCited: number;
  /** How far the scores of cited right documents stand above the others' (set too small to tell when absent). */
  separation?: { auc: number; medianGap: number };
}

function questionSetTests(name: QuestionSetName, sizes: { answered: number; uncovered: number }, floors: Floors) {
  describe(name, () => {
    const set: QuestionSet = loadQuestionSet(name);
    let asked: { answered: Asked[]; uncovered: Asked[] };
    let figures: Figures;
    before(async () => {
      asked = await askQuestionSet({ url: running.url, apiKey: running.demo.apiKey, agentId: running.demo.agentId }, set);
      figures = figuresOf(set, asked.answered, asked.uncovered);
    });

    const misses = (wanted: (rank: number) => boolean) =>
      set.answered
        .map((expected, i) => ({ expected, got: asked.answered[i]!, rank: rankOf(asked.answered[i]!, expected) }))
        .filter(({ rank }) => !wanted(rank))
        .map(({ expected, got }) => `  "${expected.question}": wanted ${expected.documents.join(' or ')}, got ${got.sources.join(', ') || 'no source'}`)
        .join('\n');

    test(`the set has at least ${sizes.answered} answered questions, each naming its document and heading, and ${sizes.uncovered} uncovered ones`, () => {
      assert.ok(set.answered.length >= sizes.answered, `${set.answered.length} questions`);
      assert.equal(set.uncovered.length, sizes.uncovered);
      for (const question of set.answered) {
        assert.ok(question.documents.length >= 1 && question.heading, JSON.stringify(question));
      }
    });

    test(`at most ${floors.dontKnow} answered questions get "I don't know"`, () => {
      assert.ok(figures.dontKnow <= floors.dontKnow, misses((rank) => rank > 0));
    });

    test(`the right document is among the first three sources for at least ${percent(floors.recallAt3)} of the questions`, () => {
      assert.ok(figures.recallAt3 >= floors.recallAt3, `recall@3 ${percent(figures.recallAt3)}:\n${misses((rank) => rank >= 1 && rank <= 3)}`);
    });

    test(`the right document is the first source for at least ${percent(floors.recallAt1)} of the questions`, () => {
      assert.ok(figures.recallAt1 >= floors.recallAt1, `recall@1 ${percent(figures.recallAt1)}:\n${misses((rank) => rank === 1)}`);
    });

    test(`at most ${floors.uncoveredCited} of the questions the documents do not cover are answered as if they did (a source above 0.7); the others get "I don't know" or the closest passage, said so`, () => {
      const cited = asked.uncovered.filter((question) => !question.dontKnow && !question.closest);
      assert.ok(cited.length <= floors.uncoveredCited, cited.map((question) => `  "${question.question}" cited ${question.sources.join(', ')}`).join('\n'));
    });

    const wanted = floors.separation;
    if (wanted) {
      test(`the score tells right sources from wrong: a cited expected document scores above another cited source with a chance of at least ${wanted.auc}, their medians at least ${wanted.medianGap} apart, and 100% shows for at most one citation in ten`, (t) => {
        const { right, wrong } = citedScores(set, asked.answered);
        const found = separation(right, wrong);
        t.diagnostic(describeSeparation(found));
        assert.ok(found.auc >= wanted.auc, describeSeparation(found));
        assert.ok(found.rightMedian - found.wrongMedian >= wanted.medianGap, describeSeparation(found));
        assert.ok(found.hundred <= (found.right + found.wrong) / 10, describeSeparation(found));
      });
    }

    test('cited sources are best first, each scored above the 0.7 threshold, or one closest passage at 0.5 or more, said so', () => {
      for (const question of [...asked.answered, ...asked.uncovered]) {
        assert.deepEqual([...question.scores].sort((a, b) => b - a), question.scores, question.question);
        if (question.closest) assert.ok(question.scores.length === 1 && question.scores[0]! >= 0.5 && question.scores[0]! <= 0.7, `${question.question}: ${question.scores}`);
        else for (const score of question.scores) assert.ok(score > 0.7 && score <= 1, `${question.question}: ${score}`);
      }
    });
  });
}

// None of its uncovered questions is cited above 0.7 (the hosted service's price and fine-tuning a model were, before a
// price question needed a stated price and a passage the question's subject, emulator-offtopic.test.ts).
questionSetTests('newcomer-questions', { answered: 40, uncovered: 10 }, { recallAt1: 0.83, recallAt3: 0.93, dontKnow: 1, uncoveredCited: 0, separation: { auc: 0.62, medianGap: 0.04 } });
// Held out: never used to tune the ranking or the score, so a change fitted to the set above shows here. Floors are
// today's figures (none of its 5 uncovered questions is answered: their subjects, voice input, a refund policy,
// running on-premises, a Shopify app, are words the docs never use).
questionSetTests('newcomer-holdout', { answered: 12, uncovered: 5 }, { recallAt1: 0.9, recallAt3: 0.9, dontKnow: 1, uncoveredCited: 0 });
// Blind: written by someone who had not read the docs, judged against them afterwards; never tuned on.
questionSetTests('newcomer-blind', { answered: 27, uncovered: 3 }, { recallAt1: 0.88, recallAt3: 0.96, dontKnow: 1, uncoveredCited: 0 });
// From the headings: written from README's section titles alone, before reading the docs, judged afterwards; never tuned
// on. Floors a question under today's figures (80.0% first, 88.0% in the top three, 1 "I don't know": "How do I keep bots
// from using up my API quota?", whose rarest word the docs use only for the browser's storage quota).
questionSetTests('newcomer-headings', { answered: 25, uncovered: 4 }, { recallAt1: 0.76, recallAt3: 0.84, dontKnow: 2, uncoveredCited: 0 });
