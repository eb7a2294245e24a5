// Datastore query latency over 10,000 fragments: POST /datastores/{id}/query
// over real HTTP (what a caller sees), and the search index alone.
import { performance } from 'node:perf_hooks';
import { startEmulator } from '../emulator/src/index.js';

const FRAGMENTS = 10_000;
const QUERIES = 1_000;
const WARMUP = 100;

// Deterministic text: a vocabulary of 2,000 words with a skewed (Zipf-like) use, as real prose has.
let seed = 42;
const random = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 4294967296;
};
const syllables = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'pa', 'do', 'fi', 'gu', 'he', 'ja', 'be'];
const vocabulary = Array.from({ length: 2_000 }, (_, i) => {
  let word = '';
  for (let n = i + 17; n > 0; n = Math.floor(n / 16)) word += syllables[n % 16];
  return word;
});
const word = () => vocabulary[Math.floor(vocabulary.length * random() ** 2.5)]!;
const sentence = () => {
  const words = Array.from({ length: 8 + Math.floor(random() * 10) }, word);
  return `${words.join(' ')}.`;
};
// About 1,000 characters each, the size the ingestion splits text into.
const fragmentText = () => Array.from({ length: 10 }, sentence).join(' ');

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
const ms = (value: number) => `${value.toFixed(2)} ms`;

// No rate limit: the bench sends far more than 300 requests a minute.
const running = await startEmulator({ pace: 0, rateLimits: { pro: Number.MAX_SAFE_INTEGER } });
const headers = { Authorization: `Bearer ${running.demo.apiKey}`, 'Content-Type': 'application/json' };
const datastoreId = running.demo.datastoreId;

const loadStart = performance.now();
for (let batch = 0; batch < FRAGMENTS / 100; batch++) {
  // One document per fragment: 100 documents per upsert call.
  const documents = Array.from({ length: 100 }, (_, i) => ({ name: `Doc ${batch * 100 + i}`, text: fragmentText().slice(0, 950) }));
  const response = await fetch(`${running.url}/datastores/upsert/${datastoreId}`, { method: 'POST', headers, body: JSON.stringify({ documents }) });
  if (!response.ok) throw new Error(`upsert failed: ${response.status} ${await response.text()}`);
}
const loadMs = performance.now() - loadStart;
const probe = (await (await fetch(`${running.url}/datastores/${datastoreId}/query`, { method: 'POST', headers, body: JSON.stringify({ query: vocabulary[5], topK: 100 }) })).json()) as unknown[];
if (probe.length === 0) throw new Error('the datastore answered no fragment');

const queries = Array.from({ length: WARMUP + QUERIES }, () => Array.from({ length: 2 + Math.floor(random() * 4) }, word).join(' '));
const http: number[] = [];
for (const [i, query] of queries.entries()) {
  const start = performance.now();
  const response = await fetch(`${running.url}/datastores/${datastoreId}/query`, { method: 'POST', headers, body: JSON.stringify({ query, topK: 5 }) });
  const results = (await response.json()) as unknown[];
  if (!response.ok || !Array.isArray(results)) throw new Error(`query failed: ${response.status}`);
  if (i >= WARMUP) http.push(performance.now() - start);
}

await running.close();

// The index alone, without HTTP or JSON.
const { FragmentIndex } = await import('../emulator/src/search/fragment-index.js');
const index = new FragmentIndex();
const indexStart = performance.now();
for (let i = 0; i < FRAGMENTS; i++) index.replace(`ds${i}`, [{ id: `f${i}`, text: fragmentText().slice(0, 950), offset: 0 }]);
const indexMs = performance.now() - indexStart;
const search: number[] = [];
for (const [i, query] of queries.entries()) {
  const start = performance.now();
  index.query(query, { topK: 5 });
  if (i >= WARMUP) search.push(performance.now() - start);
}

http.sort((a, b) => a - b);
search.sort((a, b) => a - b);
console.log(`Datastore query latency, ${FRAGMENTS.toLocaleString('en')} fragments of ~950 characters, ${QUERIES} queries of 2-5 words, topK 5:`);
console.log(`| measured | p50 | p99 | max |`);
console.log(`|---|---|---|---|`);
console.log(`| POST /datastores/{id}/query over HTTP | ${ms(percentile(http, 50))} | ${ms(percentile(http, 99))} | ${ms(http.at(-1)!)} |`);
console.log(`| search index alone | ${ms(percentile(search, 50))} | ${ms(percentile(search, 99))} | ${ms(search.at(-1)!)} |`);
console.log(`Loading ${FRAGMENTS.toLocaleString('en')} documents through the upsert endpoint (100 per call, memory store): ${(loadMs / 1000).toFixed(1)} s; indexing them alone: ${(indexMs / 1000).toFixed(1)} s.`);
