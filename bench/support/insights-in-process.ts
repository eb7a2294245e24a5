// What recording costs the proxy per question, in process, without the network's noise: the proxy's core answering
// questions one after another through a stand-in service call, insights off and on, in alternating rounds; the JSON
// answer of bench/proxy.bench.ts and its streamed answer (bench/support/streamed-answer.ts), each read to its end.
// The stream tap alone is timed too (a streamed answer's pieces pushed, then read).
//
//   node --import tsx bench/support/insights-in-process.ts
//
// BENCH_ROUNDS (default 12; the first two are left out as warm-up), BENCH_QUESTIONS per round (2,000).
// BENCH_RECORDS_HELD (default 0): records already in the store before the rounds, as a proxy holds after a busy day,
// to see whether a record costs more the more are held; the garbage collector's work over the rounds is printed too.
import { readFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { createProxyCore, type VisitorRequest } from '../../src/proxy/core/index.js';
import type { UpstreamCall } from '../../src/proxy/core/upstream.js';
import { AnswerTap } from '../../src/proxy/core/insights/answer-tap.js';
import { dayKey, dayOf, keepMs } from '../../src/proxy/core/insights/records.js';
import { MemoryRateLimitStore } from '../../src/proxy/stores/memory.js';
import { StreamLines } from '../../src/proxy/core/stream-lines.js';
import { streamedAnswerWrites } from './streamed-answer.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12);
const QUESTIONS = Number(process.env.BENCH_QUESTIONS ?? 2000);
const HELD = Number(process.env.BENCH_RECORDS_HELD ?? 0);
const ORIGIN = 'https://www.example.com';
const AGENT = 'agent_bench';
const encoder = new TextEncoder();

const JSON_ANSWER = encoder.encode(JSON.stringify({ answer: 'A short answer. '.repeat(20), conversationId: 'c', visitorId: 'v', sources: [{ datasource_id: 'd', score: 0.9 }] }));
const STREAM_PIECES = streamedAnswerWrites().map((write) => encoder.encode(write));

/** The service, answering at once: the JSON answer, or the streamed one piece by piece. */
const call: UpstreamCall = async (_url, init) => {
  const streaming = init.body.includes('"streaming":true');
  return {
    status: 200,
    header: (name) => (name.toLowerCase() === 'content-type' ? (streaming ? 'text/event-stream' : 'application/json') : null),
    hasBody: true,
    readCapped: async () => ({ bytes: JSON_ANSWER, complete: true }),
    stream: () => {
      let next = 0;
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          if (next < STREAM_PIECES.length) controller.enqueue(STREAM_PIECES[next++]!);
          else controller.close();
        },
      });
    },
  };
};

const base = { apiKey: 'sk_bench_0123456789abcdef', upstreamUrl: 'http://127.0.0.1:9', agentIds: [AGENT], allowedOrigins: [ORIGIN], perAddressLimit: false, perVisitorLimit: false, log: false } as const;
// The default store holds 200,000 records: room here for those held and the rounds' own.
const store = new MemoryRateLimitStore({ maxListValues: 200_000 + HELD });
const cores = {
  off: createProxyCore(base, call),
  on: createProxyCore({ ...base, insights: true, adminToken: 'bench_admin_0f1e2d3c4b5a69788796a5b4c3d2e1f0', rateLimitStore: store }, call),
};

/** Fills today's list with `count` records like the ones recorded, 100 an append as the recorder writes them. */
async function holdRecords(count: number): Promise<void> {
  const now = Date.now();
  for (let i = 0; i < count; i += 100) {
    const values: string[] = [];
    for (let j = i; j < Math.min(count, i + 100); j++) {
      values.push(JSON.stringify({ t: 'q', id: `held${String(j).padStart(18, '0')}`, at: new Date(now).toISOString(), agent: AGENT, question: `How do I run the proxy, question ${j}?`, outcome: { kind: 'answered', sources: 5 }, sources: ['Guide, part 1: running the proxy', 'Guide, part 2: running the proxy'], opening: 'the proxy keeps your key on the server and passes each answer to the visitor as it streams, '.repeat(3), visitor: '0f1e2d3c4b5a69788796a5b4c3d2e1f0', firstByteMs: 120, totalMs: 900 }));
    }
    await store.append(dayKey(dayOf(now)), values, keepMs(now, 30));
  }
}

const headers: Record<string, string> = { origin: ORIGIN, 'content-type': 'application/json' };
function visitorRequest(body: Uint8Array, address: string): VisitorRequest {
  return {
    method: 'POST',
    pathname: `/agents/${AGENT}/query`,
    header: (name) => headers[name] ?? null,
    clientAddress: address,
    readBody: async () => ({ bytes: body, complete: true }),
    onLeave: () => () => {},
  };
}

const bodies = { json: encoder.encode('{"query":"How do I run the proxy?"}'), stream: encoder.encode('{"query":"How do I run the proxy?","streaming":true}') };

/** Asks `count` questions one after another and reads each answer to its end; µs of this thread's time per question. */
async function ask(core: (typeof cores)['on'], kind: keyof typeof bodies, count: number): Promise<number> {
  const started = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const answer = await core.answer(visitorRequest(bodies[kind], `203.0.113.${i % 50}`));
    if (answer.status !== 200) throw new Error(`answered ${answer.status}`);
    if (answer.body instanceof ReadableStream) {
      const reader = answer.body.getReader();
      while (!(await reader.read()).done);
    }
    // The event loop's turn, as a server gives it between requests: the recorder writes its batches on timers.
    if (i % 50 === 49) await new Promise(setImmediate);
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / count;
}

/** Where the relay's line reader says the answer's end starts, after each piece (read by the relay insights on or off). */
const lines = new StreamLines();
const KEEP_FROM = STREAM_PIECES.map((piece) => (lines.push(piece), lines.keepFrom));

/** The stream tap alone on the streamed answer: µs per answer. */
function tapAlone(count: number): number {
  const started = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const tap = new AnswerTap();
    for (let p = 0; p < STREAM_PIECES.length; p++) tap.push(STREAM_PIECES[p]!, KEEP_FROM[p]!);
    if (tap.reading().sources.length !== 5) throw new Error('the tap lost the sources');
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / count;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
await holdRecords(HELD);
const gc = { count: 0, ms: 0, major: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gc.count++;
    gc.ms += entry.duration;
    // NODE_PERFORMANCE_GC_MAJOR
    if ((entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === 4) gc.major++;
  }
}).observe({ entryTypes: ['gc'] });
const heap = () => {
  const h = getHeapStatistics();
  return `heap used ${(h.used_heap_size / 2 ** 20).toFixed(1)} MiB, external ${(h.external_memory / 2 ** 20).toFixed(1)} MiB`;
};
console.log(`load average at start: ${loadAverage()}; ${ROUNDS} rounds of ${QUESTIONS} questions, the first two left out; ${HELD} records held before (${heap()})`);
const results: Record<string, number[]> = {};
const keep = (name: string, round: number, value: number) => round >= 2 && (results[name] ??= []).push(value);
for (let round = 0; round < ROUNDS; round++) {
  for (const kind of ['json', 'stream'] as const) {
    const order = round % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const);
    for (const setting of order) keep(`${kind} ${setting}`, round, await ask(cores[setting], kind, kind === 'json' ? QUESTIONS : QUESTIONS / 4));
  }
  keep('tap', round, tapAlone(QUESTIONS / 4));
}
console.log(`load average at end: ${loadAverage()}; ${heap()}; garbage collections over the rounds: ${gc.count} (${gc.major} full), ${gc.ms.toFixed(0)} ms`);
for (const kind of ['json', 'stream'] as const) {
  const off = results[`${kind} off`]!;
  const on = results[`${kind} on`]!;
  const ratios = on.map((value, i) => value / off[i]!);
  console.log(`${kind === 'json' ? 'JSON question' : 'streamed answer (34 KB)'}: off ${median(off).toFixed(1)} µs, on ${median(on).toFixed(1)} µs: recording ${(median(on) - median(off)).toFixed(1)} µs, ${median(ratios).toFixed(3)}x (${Math.min(...ratios).toFixed(3)} to ${Math.max(...ratios).toFixed(3)} round by round)`);
  console.log(`  recording round by round, µs: ${on.map((value, i) => (value - off[i]!).toFixed(1)).join(' ')}`);
}
console.log(`the stream tap alone, the streamed answer pushed and read: ${median(results.tap!).toFixed(1)} µs`);
