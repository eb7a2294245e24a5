// Search on a public benchmark, BEIR SciFact (5,183 abstracts, 300 test
// claims): the abstracts uploaded as plain text to an emulator in its own
// process, each claim asked through POST /datastores/{id}/query over HTTP,
// nDCG@10 and recall@100 beside a reference BM25 (Lucene's, k1 0.9, b 0.4,
// Porter) computed in the same run. Then the resident memory over 10 passes
// of the claims and the query latency; then, in process, what each part of
// the ranking adds, on SciFact and on the project's question sets.
import { readFileSync } from 'node:fs';
import { knowledgeBaseFiles } from '../demo/knowledge-base.js';
import { extractMarkdown } from '../emulator/src/ingest/markdown.js';
import { extractPlainText } from '../emulator/src/ingest/text.js';
import { fragmentsOf } from '../emulator/src/ingest-queue.js';
import { FragmentIndex, type Ranking } from '../emulator/src/search/fragment-index.js';
import { loadQuestionSet, percent } from '../test/support/question-set.js';
import { startEmulatorProcess } from '../test/support/emulator-process.js';
import { SCIFACT_MISSING, askSciFact, citedScores, documentText, loadSciFact, sciFactFigures, sciFactFolder, uploadSciFact } from '../test/support/scifact.js';
import { ReferenceBm25 } from './support/reference-bm25.js';
import { fitSlopes, type Example } from './support/score-slopes.js';
import { SLOPES } from '../emulator/src/search/score.js';
import { describeSeparation, separation } from '../test/support/separation.js';

const folder = sciFactFolder();
if (!folder) {
  console.log(`Skipped: ${SCIFACT_MISSING}.`);
  process.exit(0);
}
const set = loadSciFact(folder);
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(bytes < 20 * 2 ** 20 ? 1 : 0)} MB`;
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;

// The emulator, over HTTP, in its own process.
const emulator = await startEmulatorProcess();
const idle = emulator.rss();
let start = performance.now();
await uploadSciFact(emulator, set.corpus);
const uploadMs = performance.now() - start;
const ingested = emulator.rss();
const rankings = new Map<string, readonly string[]>();
const cited = new Map<string, { id: string; score: number }[]>();
const passes: { rss: number; times: number[] }[] = [];
for (let pass = 0; pass < 10; pass++) {
  const times: number[] = [];
  for (const query of set.queries) {
    const { ranked, cited: sources, ms } = await askSciFact(emulator, query.text);
    if (pass === 0) {
      rankings.set(query.id, ranked);
      cited.set(query.id, sources);
    }
    times.push(ms);
  }
  passes.push({ rss: emulator.rss(), times });
}
// As an agent asks (it reads 8 fragments): topK 10.
const agentTimes: number[] = [];
for (const query of set.queries) agentTimes.push((await askSciFact(emulator, query.text, 10)).ms);
await emulator.close();
const now = sciFactFigures(set, rankings);

// The reference, in process.
start = performance.now();
const reference = new ReferenceBm25();
for (const document of set.corpus) reference.add(document.id, `${document.title} ${document.text}`);
const referenceRankings = new Map(set.queries.map((query) => [query.id, reference.search(query.text, 100)]));
const referenceMs = performance.now() - start;
const bm25 = sciFactFigures(set, referenceRankings);

const textBytes = set.corpus.reduce((sum, document) => sum + Buffer.byteLength(documentText(document)), 0);
console.log(`BEIR SciFact: ${set.corpus.length.toLocaleString('en')} abstracts (${mb(textBytes)} of text), ${set.queries.length} test claims.`);
console.log('| ranking | nDCG@10 | recall@100 |');
console.log('|---|---:|---:|');
console.log(`| reference BM25 (Lucene: k1 0.9, b 0.4, Porter), ${referenceMs.toFixed(0)} ms to index and ask | ${bm25.ndcg10.toFixed(3)} | ${bm25.recall100.toFixed(3)} |`);
console.log(`| emulator, POST /datastores/{id}/query over HTTP (topK 100 fragments) | ${now.ndcg10.toFixed(3)} | ${now.recall100.toFixed(3)} |`);
const { right, wrong } = citedScores(set, cited);
console.log(`\nScores shown, the sources an agent would cite (of the first 8 fragments, above 0.7, each abstract once): ${describeSeparation(separation(right, wrong))}.`);
const all = passes.flatMap((pass) => pass.times);
console.log(`\nUpload: ${(uploadMs / 1000).toFixed(1)} s (100 documents a call). Emulator resident memory: ${mb(idle)} started, ${mb(ingested)} ingested (${mb(ingested - idle)} for ${mb(textBytes)} of text), after each of 10 passes of the claims: ${passes.map((pass) => mb(pass.rss).replace(' MB', '')).join(', ')} MB.`);
console.log(`Query over HTTP, topK 100 (about 100 KB of answer), ${all.length} queries: p50 ${percentile(all, 50).toFixed(1)} ms, p95 ${percentile(all, 95).toFixed(1)} ms, p99 ${percentile(all, 99).toFixed(1)} ms; topK 10, ${agentTimes.length} queries: p50 ${percentile(agentTimes, 50).toFixed(1)} ms, p95 ${percentile(agentTimes, 95).toFixed(1)} ms.`);

// What each part adds, in process over the same fragments (one part left out at a time).
const parts: [string, Ranking][] = [
  ['all parts', {}],
  ['without section titles as fields (BM25F)', { titles: false }],
  ['without document support', { documentSupport: false }],
  ['without synonyms', { synonyms: false }],
  ['without everyday words at a third', { lightWords: false }],
  ['without reading unknown words as known ones', { unknownWords: false }],
  ['plain BM25 (none of them)', { titles: false, documentSupport: false, synonyms: false, lightWords: false, unknownWords: false }],
  // Issue 25 point 2, each back as it was.
  ['the titles around a fragment at 0.75 of its words', { aroundTitles: 0.75 }],
  ['a synonym of several words matching on any one of them', { wholeSynonyms: false }],
];
const sciFactFragments = set.corpus.map((document) => ({ id: document.id, fragments: fragmentsOf(extractPlainText(Buffer.from(documentText(document)))) }));
const root = new URL('../', import.meta.url);
const docs = await Promise.all((await knowledgeBaseFiles(root)).map(async (path) => ({ path, fragments: fragmentsOf(extractMarkdown(readFileSync(new URL(path, root)))) })));
const questionSets = [loadQuestionSet('newcomer-questions'), loadQuestionSet('newcomer-holdout')];
console.log('\n| ranking (in process) | SciFact nDCG@10 | questions recall@1 | questions MRR | held out recall@1 | held out MRR |');
console.log('|---|---:|---:|---:|---:|---:|');
const gc = (globalThis as { gc?: () => void }).gc;
const heldBytes = () => {
  gc?.();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
};
const fragmentText = sciFactFragments.reduce((sum, { fragments }) => sum + fragments.reduce((total, fragment) => total + fragment.text.length, 0), 0);
let indexBytes = 0;
let slopes = '';
for (const [name, ranking] of parts) {
  const before = heldBytes();
  const index = new FragmentIndex(ranking);
  for (const { id, fragments } of sciFactFragments) index.replace(id, fragments);
  // As the emulator holds it once the datastore has settled.
  index.tidy();
  if (indexBytes === 0) indexBytes = heldBytes() - before;
  const hitsOf = new Map(set.queries.map((query) => [query.id, index.query(query.text, { topK: 100, standing: true })]));
  const ranked = new Map([...hitsOf].map(([id, hits]) => [id, [...new Set(hits.map((hit) => hit.datasourceId))]]));
  // The score's slopes fitted again, on the whole ranking: the first eight abstracts found for each claim, each by its best passage.
  if (name === 'all parts') {
    const examples: Example[] = [];
    for (const [id, hits] of hitsOf) {
      const seen = new Set<string>();
      for (const hit of hits) {
        if (seen.size === 8 || seen.has(hit.datasourceId)) continue;
        seen.add(hit.datasourceId);
        examples.push({ ...hit.standing!, right: (set.judgments.get(id)!.get(hit.datasourceId) ?? 0) > 0 });
      }
    }
    const fit = fitSlopes(examples);
    slopes = `The score's slopes fitted again (logistic regression over the first eight abstracts of each claim, ${examples.length.toLocaleString('en')} of them): share ${fit.share.toFixed(2)}, over the best ${fit.ofBest.toFixed(2)}, lead ${fit.lead.toFixed(2)} (intercept ${fit.intercept.toFixed(2)}); the score uses ${SLOPES.share}, ${SLOPES.ofBest} and ${SLOPES.lead}.`;
  }
  const docsIndex = new FragmentIndex(ranking);
  for (const { path, fragments } of docs) docsIndex.replace(path, fragments);
  // The rank of the first right document among the documents found (no threshold: the ranking alone).
  const questionFigures = questionSets.map((questions) => {
    const ranks = questions.answered.map((expected) => {
      const found = [...new Set(docsIndex.query(expected.question, { topK: 20 }).map((hit) => hit.datasourceId))];
      return found.findIndex((path) => expected.documents.includes(path)) + 1;
    });
    return { recallAt1: ranks.filter((rank) => rank === 1).length / ranks.length, mrr: ranks.reduce((sum, rank) => sum + (rank ? 1 / rank : 0), 0) / ranks.length };
  });
  const [questions, heldOut] = questionFigures as [(typeof questionFigures)[0], (typeof questionFigures)[0]];
  console.log(`| ${name} | ${sciFactFigures(set, ranked).ndcg10.toFixed(3)} | ${percent(questions.recallAt1)} | ${questions.mrr.toFixed(3)} | ${percent(heldOut.recallAt1)} | ${heldOut.mrr.toFixed(3)} |`);
}
console.log(`\n${slopes}`);
if (gc) console.log(`\nThe index of the ${sciFactFragments.reduce((sum, { fragments }) => sum + fragments.length, 0).toLocaleString('en')} fragments (${mb(fragmentText)} of fragment text, overlaps included) holds ${mb(indexBytes)} (heap and array buffers, after a collection): ${(indexBytes / fragmentText).toFixed(1)} bytes per byte of text.`);
