// The newcomer question sets (test/fixtures/questions: the tuned-on set and
// the held-out one) against the emulator
// seeded as `npm start` seeds it, over real HTTP: recall@1, recall@3, MRR
// and "I don't know" counts, beside the ranking the emulator had before
// (bench/support/search-before.ts: one text field, no section titles, code
// names or synonyms) over the same fragments.
import { readFileSync } from 'node:fs';
import { knowledgeBaseFiles, seedKnowledgeBase } from '../demo/knowledge-base.js';
import { startEmulator } from '../emulator/src/index.js';
import { extractMarkdown } from '../emulator/src/ingest/markdown.js';
import { fragmentsOf } from '../emulator/src/ingest-queue.js';
import { askQuestionSet, citedScores, figuresOf, loadQuestionSet, percent, rankOf, type Asked, type Figures, type QuestionSet } from '../test/support/question-set.js';
import { FragmentIndex as IndexBefore } from './support/search-before.js';
import { describeSeparation, separation } from '../test/support/separation.js';

const root = new URL('../', import.meta.url);
const set = loadQuestionSet();
const holdout = loadQuestionSet('newcomer-holdout');
const THRESHOLD = 0.7;

// Now: the emulator itself, over HTTP.
const running = await startEmulator({ port: 0, pace: 0, log: () => {}, rateLimits: { pro: Number.MAX_SAFE_INTEGER } });
await seedKnowledgeBase(root, { url: running.url, apiKey: running.demo.apiKey, datastoreId: running.demo.datastoreId });
const agent = { url: running.url, apiKey: running.demo.apiKey, agentId: running.demo.agentId };
const now = await askQuestionSet(agent, set);
const nowHeldOut = await askQuestionSet(agent, holdout);
await running.close();

// Before: the old index over the same fragments (without their section titles), sources picked as the agent picks them.
const before = new IndexBefore();
for (const path of await knowledgeBaseFiles(root)) {
  before.replace(path, fragmentsOf(extractMarkdown(readFileSync(new URL(path, root)))).map(({ section: _section, ...fragment }) => fragment));
}
const askBefore = (question: string): Asked => {
  const seen = new Set<string>();
  const cited = before.query(question, { topK: 8 }).filter((hit) => hit.score > THRESHOLD && !seen.has(hit.datasourceId) && seen.add(hit.datasourceId));
  return { question, sources: cited.map((hit) => hit.datasourceId), scores: cited.map((hit) => hit.score), answer: '', dontKnow: cited.length === 0 };
};
const then = figuresOf(set, set.answered.map((q) => askBefore(q.question)), set.uncovered.map(askBefore));
const nowFigures = figuresOf(set, now.answered, now.uncovered);
const thenHeldOut = figuresOf(holdout, holdout.answered.map((q) => askBefore(q.question)), holdout.uncovered.map(askBefore));
const nowHeldOutFigures = figuresOf(holdout, nowHeldOut.answered, nowHeldOut.uncovered);

const row = (name: string, f: Figures) =>
  `| ${name} | ${percent(f.recallAt1)} | ${percent(f.recallAt3)} | ${f.mrr.toFixed(3)} | ${f.dontKnow} of ${f.questions} | ${f.uncoveredDontKnow} of ${f.uncovered} |`;
console.log(`Newcomer question set: ${set.answered.length} answered questions, ${set.uncovered.length} the documents do not cover; sources cited above ${THRESHOLD}.`);
console.log('| ranking | recall@1 | recall@3 | MRR | "I don\'t know" (answered) | "I don\'t know" (uncovered) |');
console.log('|---|---:|---:|---:|---:|---:|');
console.log(row('before (one field, no synonyms)', then));
console.log(row('now', nowFigures));
console.log(row(`held out (${holdout.answered.length} + ${holdout.uncovered.length}), before`, thenHeldOut));
console.log(row(`held out (${holdout.answered.length} + ${holdout.uncovered.length}), now`, nowHeldOutFigures));
// Whether the score tells right from wrong: the cited sources that are an expected document of their question, and the others.
for (const [name, questions, asked] of [
  ['set', set, now.answered],
  ['held out', holdout, nowHeldOut.answered],
] as const) {
  const { right, wrong } = citedScores(questions, asked);
  console.log(`Cited scores, ${name}: ${describeSeparation(separation(right, wrong))}.`);
}
for (const asked of [...now.uncovered, ...nowHeldOut.uncovered]) if (!asked.dontKnow) console.log(`Answered though uncovered: "${asked.question}" (${asked.sources[0]} ${asked.scores[0]!.toFixed(2)})`);
// The misses, each with what was cited instead and its score: where to look when a figure moves.
const cited = (asked: Asked) => asked.sources.map((source, i) => `${source} ${asked.scores[i]!.toFixed(2)}`).join(', ') || 'nothing';
const printMisses = (name: string, questions: QuestionSet, asked: Asked[]) => {
  questions.answered.forEach((expected, i) => {
    const rank = rankOf(asked[i]!, expected);
    if (rank !== 1) console.log(`${name}, ${rank ? `rank ${rank}` : 'not cited'}: "${expected.question}" (wanted ${expected.documents.join(' or ')}, § ${expected.heading}): ${cited(asked[i]!)}`);
  });
};
printMisses('Missed', set, now.answered);
printMisses('Missed (held out)', holdout, nowHeldOut.answered);
