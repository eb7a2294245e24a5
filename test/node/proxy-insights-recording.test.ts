// What recording costs the proxy, as behaviour: where the memory store keeps a day's records, what the stream tap
// reads of an answer however it is cut into pieces, and how often a visitor is hashed.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MemoryRateLimitStore } from '../../src/proxy/index.js';
import { Insights } from '../../src/proxy/core/insights/index.js';
import { PackedList } from '../../src/proxy/stores/packed-list.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

describe("the memory store's lists", () => {
  test('give back every value as appended, in order: any characters, empty, larger than a block, across many blocks; remove takes every copy out', () => {
    const list = new PackedList();
    const odd = ['', 'é', '日本語の質問', 'emoji 😀 and a lone surrogate-free pair 🇫🇷', 'x'.repeat(300_000), '"quoted"\n\\'];
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
    const outside = after.arrayBuffers - before.arrayBuffers;
    // Other buffers of the process come and go meanwhile: the records' bytes are most of what grew outside the heap.
    assert.ok(outside > bytes * 0.8, `${bytes} bytes of records, ${outside} outside the heap`);
    assert.ok(heapGrowth < 2_000_000, `the heap grew by ${heapGrowth} bytes for 20,000 records`);
    const kept = await store.list('insights:2026-11-29');
    assert.equal(kept.length, 20_000);
    assert.equal(kept[12_345], record(12_345));
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
