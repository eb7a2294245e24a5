// What recording costs the proxy, as behaviour: where the memory store keeps a day's records, what the stream tap
// reads of an answer however it is cut into pieces, and how often a visitor is hashed.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { DONE_EVENT, answerEvent, endpointResponseEvent, toolCallEvent } from '../../src/protocol/index.js';
import { MemoryRateLimitStore } from '../../src/proxy/index.js';
import { Insights } from '../../src/proxy/core/insights/index.js';
import { AnswerTap } from '../../src/proxy/core/insights/answer-tap.js';
import { StreamLines } from '../../src/proxy/core/stream-lines.js';
import { dayKey, dayOf } from '../../src/proxy/core/insights/records.js';
import { PackedList } from '../../src/proxy/stores/packed-list.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const encoder = new TextEncoder();

describe("the memory store's lists", () => {
  test('give back every value as appended, in order: any characters, empty, larger than a block, across many blocks; remove takes every copy out', () => {
    const list = new PackedList();
    const odd = ['', 'é', '\ufeffa byte order mark first', '日本語の質問', 'emoji 😀 and a lone surrogate-free pair 🇫🇷', 'x'.repeat(300_000), '"quoted"\n\\'];
    const values = Array.from({ length: 3000 }, (_, i) => `{"n":${i},"q":"${'ab'.repeat(i % 200)}"}`);
    const all = [...odd, ...values, ...odd];
    // Batches of every size, one value at a time among them (a quiet proxy appends its records one by one).
    for (let i = 0, size = 1; i < all.length; i += size, size = (size % 7) + 1) list.push(all.slice(i, i + size));
    assert.equal(list.length, all.length);
    assert.deepEqual(list.values(), all);
    assert.equal(list.remove(new Set(['é', values[5]!])), 3);
    assert.deepEqual(list.values(), all.filter((v) => v !== 'é' && v !== values[5]));
  });

  test("hold a day's records outside the JavaScript heap, however they were appended (the collector walks none of them)", async () => {
    const store = new MemoryRateLimitStore();
    const record = (i: number) => JSON.stringify({ t: 'q', id: String(i).padStart(22, '0'), question: `question ${i}`, opening: 'An answer that goes on. '.repeat(25) });
    gc();
    const before = process.memoryUsage();
    // 20,000 records of about 700 bytes (14 MB), one append each.
    let bytes = 0;
    for (let i = 0; i < 20_000; i++) {
      bytes += record(i).length;
      await store.append('insights:2026-11-29', [record(i)], 86_400_000);
    }
    gc();
    const after = process.memoryUsage();
    const heapGrowth = after.heapUsed - before.heapUsed;
    // The records' bytes, all kept (read back below), grow the heap by a small part of them. The process's count of
    // bytes outside the heap is no check: other buffers are freed meanwhile (a loaded CI run saw 9.6 of 13.6 MB).
    assert.ok(heapGrowth < 2_000_000, `the heap grew by ${heapGrowth} bytes for 20,000 records (${bytes} bytes)`);
    const kept = await store.list('insights:2026-11-29');
    assert.equal(kept.length, 20_000);
    assert.equal(kept[12_345], record(12_345));
  });
});

describe('the stream tap', () => {
  const answer = Array.from({ length: 40 }, (_, i) => `Word ${i}, and more, ${'é'.repeat(i % 3)} `).join('');
  const response = JSON.stringify({ answer, conversationId: 'c', visitorId: 'v', sources: [{ datasource_id: 'a', datasource_name: 'Guide' }, { datasource_id: 'b', source_url: 'https://example.com/b' }, { datasource_id: 'c' }] });
  const fragments = answer.match(/.{1,9}/gsu)!;
  const streams: { name: string; text: string; reading: { opening: string; sources: string[]; error: string | undefined } }[] = [
    {
      name: 'an answer with a tool call naming the response, and its response in two events',
      text:
        fragments.slice(0, 20).map(answerEvent).join('') +
        toolCallEvent({ type: 'function', name: 'endpoint_response', arguments: { line: 'event: endpoint_response' } }) +
        // A data line that holds the event's name as is, under another event: not the response.
        'event: note\ndata: endpoint_response\n\n' +
        'event: endpoint_responses\ndata: not%20JSON\n\n' +
        fragments.slice(20).map(answerEvent).join('') +
        endpointResponseEvent(response.slice(0, 100)) +
        endpointResponseEvent(response.slice(100)) +
        DONE_EVENT,
      reading: { opening: answer.slice(0, 300), sources: ['Guide', 'https://example.com/b', 'c'], error: undefined },
    },
    {
      name: 'an answer cut by the service with an error line, in CRLF lines',
      text: (fragments.map(answerEvent).join('') + 'data: [ERROR]USAGE_LIMIT: plus de crédit\n').replaceAll('\n', '\r\n'),
      reading: { opening: answer.slice(0, 300), sources: [], error: 'USAGE_LIMIT: plus de crédit' },
    },
    {
      name: 'a short answer (the opening never full) and its response',
      text: fragments.slice(0, 3).map(answerEvent).join('') + endpointResponseEvent(response) + DONE_EVENT,
      reading: { opening: fragments.slice(0, 3).join(''), sources: ['Guide', 'https://example.com/b', 'c'], error: undefined },
    },
  ];

  // Through the relay's line reader, as the relay hands the pieces on.
  const read = (pieces: Uint8Array[]) => {
    const lines = new StreamLines();
    const tap = new AnswerTap();
    for (const piece of pieces) {
      lines.push(piece);
      tap.push(piece, lines.keepFrom);
    }
    return tap.reading();
  };

  test('reads the opening and the response of an answer longer than it keeps (its middle let go)', () => {
    const long = fragments.map(answerEvent).join('') + Array.from({ length: 12_000 }, (_, i) => answerEvent(`more words ${i} `)).join('') + endpointResponseEvent(response) + DONE_EVENT;
    const bytes = encoder.encode(long);
    assert.ok(bytes.length > 400_000);
    for (const size of [1, 700, 70_000]) {
      const pieces: Uint8Array[] = [];
      for (let at = 0; at < bytes.length; at += size) pieces.push(bytes.subarray(at, at + size));
      assert.deepEqual(read(pieces), { opening: answer.slice(0, 300), sources: ['Guide', 'https://example.com/b', 'c'], error: undefined }, `pieces of ${size} bytes`);
    }
  });

  test('reads a service-sized answer (300 answer events, its sources in the last event before [DONE]) the same cut at every byte', () => {
    const pieces = Array.from({ length: 300 }, (_, i) => (i % 40 === 39 ? `sentence ${i} — résumé.\n\n` : `word ${i}, and more, `));
    const sources = Array.from({ length: 5 }, (_, i) => ({ chunk_id: `chunk_${i}`, datasource_id: `ds_${i}`, datasource_name: `Guide, part ${i + 1}`, source_url: `https://docs.example.com/guide/${i + 1}`, score: 0.9 - i / 100 }));
    const text = pieces.map(answerEvent).join('') + endpointResponseEvent(JSON.stringify({ messageId: 'm', answer: pieces.join(''), sources, conversationId: 'c', visitorId: 'v', metadata: {} })) + DONE_EVENT;
    const bytes = encoder.encode(text);
    const reading = { opening: pieces.join('').slice(0, 300), sources: sources.map((source) => source.datasource_name), error: undefined };
    assert.deepEqual(read([bytes]), reading);
    // At every byte of its opening, of its last answer events and of the start and end of its response; every 97th elsewhere.
    const responseStart = encoder.encode(text.slice(0, text.indexOf('event: endpoint_response'))).length;
    const everyByte = (cut: number) => cut < 1_500 || Math.abs(cut - responseStart) < 600 || cut > bytes.length - 300;
    for (let cut = 1; cut < bytes.length; cut++) if (everyByte(cut) || cut % 97 === 0) assert.deepEqual(read([bytes.subarray(0, cut), bytes.subarray(cut)]), reading, `cut at byte ${cut}`);
    // In pieces of many sizes, each a small part of a larger buffer (as a socket's reads can be).
    for (const size of [1, 3, 64, 1000, 4096, 20_000]) {
      const pieces: Uint8Array[] = [];
      for (let at = 0; at < bytes.length; at += size) {
        const buffer = new Uint8Array(65_536);
        buffer.set(bytes.subarray(at, at + size), 100);
        pieces.push(buffer.subarray(100, 100 + Math.min(size, bytes.length - at)));
      }
      assert.deepEqual(read(pieces), reading, `pieces of ${size} bytes`);
    }
  });

  test('reads an answer cut before its end (the service closed or the visitor left): its opening, no sources, no error', () => {
    const whole = fragments.map(answerEvent).join('') + endpointResponseEvent(response) + DONE_EVENT;
    // Cut inside the response's data line, and inside the last answer event's.
    for (const cut of [whole.indexOf('data: %7B') + 40, whole.lastIndexOf('event: answer') + 20]) {
      const bytes = encoder.encode(whole.slice(0, cut));
      for (const size of [1, 7, 100, bytes.length]) {
        const pieces: Uint8Array[] = [];
        for (let at = 0; at < bytes.length; at += size) pieces.push(bytes.subarray(at, at + size));
        assert.deepEqual(read(pieces), { opening: answer.slice(0, 300), sources: [], error: undefined }, `cut at ${cut}, pieces of ${size} bytes`);
      }
    }
  });

  test("reads the response's own sources wherever its keys are and whatever they hold: another 'sources' nested before or after, one in a key's name", () => {
    const sources = [{ datasource_name: 'Guide' }, { source_url: 'https://example.com/b' }];
    const responses = [
      { metadata: { sources: [{ datasource_name: 'Nested before' }] }, answer, sources },
      { answer, sources, metadata: { sources: [{ datasource_name: 'Nested after' }] } },
      { answer, 'a"sources': [{ datasource_name: 'A key holding the word' }], sources },
      { sources, answer },
    ].map((value) => JSON.stringify(value));
    // The key twice: JSON.parse keeps the last.
    responses.push(`{"answer":"${answer}","sources":[{"datasource_name":"Said twice"}],"conversationId":"c","sources":${JSON.stringify(sources)}}`);
    for (const json of responses) {
      const text = fragments.slice(0, 5).map(answerEvent).join('') + endpointResponseEvent(json) + DONE_EVENT;
      assert.deepEqual(read([encoder.encode(text)]).sources, ['Guide', 'https://example.com/b'], json.slice(0, 60));
    }
    const only = fragments.slice(0, 5).map(answerEvent).join('') + endpointResponseEvent(JSON.stringify({ answer, 'a"sources': [{ datasource_name: 'A key holding the word' }] })) + DONE_EVENT;
    assert.deepEqual(read([encoder.encode(only)]).sources, []);
  });

  test("keeps a held stream's heartbeats in about as many bytes as they are, not an array each", () => {
    // 1,000 streams held for five minutes: a 23-byte event a second each (6.9 KB), as the service's heartbeats.
    const heartbeat = encoder.encode(answerEvent('.'));
    gc();
    const before = process.memoryUsage();
    const taps = Array.from({ length: 1000 }, () => {
      const lines = new StreamLines();
      const tap = new AnswerTap();
      for (let i = 0; i < 300; i++) {
        const piece = heartbeat.slice();
        lines.push(piece);
        tap.push(piece, lines.keepFrom);
      }
      return tap;
    });
    gc();
    const after = process.memoryUsage();
    const perStream = (after.heapUsed - before.heapUsed + after.arrayBuffers - before.arrayBuffers) / taps.length;
    assert.ok(perStream < 16 * 1024, `${perStream.toFixed(0)} bytes a stream`);
    assert.equal(taps[999]!.reading().opening, '.'.repeat(300));
  });

  for (const { name, text, reading } of streams) {
    test(`reads the same however the pieces are cut: ${name}`, () => {
      const bytes = encoder.encode(text);
      assert.deepEqual(read([bytes]), reading);
      for (let cut = 1; cut < bytes.length; cut++) assert.deepEqual(read([bytes.subarray(0, cut), bytes.subarray(cut)]), reading, `cut at byte ${cut}`);
      for (const size of [1, 2, 3, 5, 7, 13, 24, 25, 64]) {
        const pieces: Uint8Array[] = [];
        for (let at = 0; at < bytes.length; at += size) pieces.push(bytes.subarray(at, at + size));
        assert.deepEqual(read(pieces), reading, `pieces of ${size} bytes`);
      }
    });
  }
});

describe('a question answered', () => {
  test("lets go of what its answer left (a stream's end) soon after, before its record is written with others", async () => {
    const store = new MemoryRateLimitStore();
    const insights = new Insights({ days: 30, adminToken: undefined, visitorKey: 'k'.repeat(32) }, store, () => {});
    // The stream's pieces, each its own buffer, reachable from here only through weak references.
    const buffers = (() => {
      const recording = insights.start('agent', 'How?', 'address:203.0.113.9');
      const lines = new StreamLines();
      const pieces = [answerEvent('The proxy '), answerEvent('keeps the key.'), endpointResponseEvent(JSON.stringify({ answer: 'The proxy keeps the key.', sources: [{ datasource_id: 'a', datasource_name: 'Guide' }] })), DONE_EVENT].map((text) => encoder.encode(text));
      for (const piece of pieces) {
        lines.push(piece);
        recording.piece(piece, lines.keepFrom);
      }
      recording.end({ kind: 'complete' });
      return pieces.map((piece) => new WeakRef(piece.buffer));
    })();
    const today = dayKey(dayOf(Date.now()));
    // Until the buffers are collected or the record is written (a batch waits 200 ms for others), whichever is first.
    while (buffers.some((buffer) => buffer.deref()) && (await store.list(today)).length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      gc();
    }
    assert.equal((await store.list(today)).length, 0, 'the answer was held until its record was written');
    const [record] = await insights.values();
    assert.deepEqual([record?.t === 'q' && record.opening, record?.t === 'q' && record.sources], ['The proxy keeps the key.', ['Guide']]);
  });
});

describe('the visitor hash', () => {
  test("a new visitor's keyed hash is worked out once, however many of their questions are written while it is", async () => {
    const store = new MemoryRateLimitStore();
    const insights = new Insights({ days: 30, adminToken: undefined, visitorKey: 'k'.repeat(32) }, store, () => {});
    const sign = crypto.subtle.sign;
    let signed = 0;
    crypto.subtle.sign = function (this: SubtleCrypto, ...args: Parameters<SubtleCrypto['sign']>) {
      signed++;
      return sign.apply(this, args);
    } as SubtleCrypto['sign'];
    try {
      // Five batches of one question each, all written before the first hash is ready.
      const flushes: Promise<void>[] = [];
      for (let i = 0; i < 5; i++) {
        insights.start('agent', `question ${i}`, 'address:203.0.113.9').refused(429, { code: 'RATE_LIMITED' });
        flushes.push(insights.flush());
      }
      await Promise.all(flushes);
      const values = await insights.values();
      assert.equal(values.length, 5);
      assert.equal(new Set(values.map((v) => v.visitor)).size, 1);
      assert.equal(signed, 1);
    } finally {
      crypto.subtle.sign = sign;
    }
  });
});
