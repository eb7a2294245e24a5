// A relayed answer is bounded in time and size whatever the service does:
// past either cap the visitor's stream ends with an `[ERROR]` line the widget
// reads, and the service's request is cancelled.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { readAgentStream, type AgentStreamEvent } from '../../src/protocol/index.js';
import { AGENT, SITE, startProxyHarness, type ProxyHarness } from '../support/proxy-harness.js';
import { answer, endlessStream } from '../support/proxy-upstream.js';
import { sampleStreamChunks } from '../support/scripted-service.js';

const PATH = `/agents/${AGENT}/query`;

async function events(text: string): Promise<AgentStreamEvent[]> {
  const all: AgentStreamEvent[] = [];
  for await (const event of readAgentStream(new Response(text).body!)) all.push(event);
  return all;
}

for (const [client, makeFetch] of [['the global fetch', () => globalThis.fetch], ["serveProxy's own call on undici, as kagent-proxy", undefined]] as const)
  describe(`relayed stream limits, with ${client}`, () => {
    let h: ProxyHarness;
    before(async () => {
      h = await startProxyHarness({ maxStreamMs: 400, maxStreamBytes: 4000, perAddressLimit: false, perVisitorLimit: false, ...(makeFetch ? { fetch: makeFetch() } : {}) });
    });
    after(() => h.close());
    afterEach(() => h.upstream.behave(answer()));

    test('an answer within both caps is relayed whole, ending with [DONE]', async () => {
      // At once: the sample answer dribbled a chunk per millisecond could outlast the 400 ms cap on a busy machine.
      h.upstream.behave((_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        res.end(sampleStreamChunks().join(''));
      });
      const { text } = await h.send(PATH, { json: { query: 'hi', streaming: true } });
      assert.equal((await events(text)).at(-1)?.type, 'done');
    });

    test('a stream that never ends is closed with [ERROR]STREAM_TOO_LONG after maxStreamMs, keeping what came, and the service request is cancelled', async () => {
      // Small events far apart: only the duration cap can end it.
      h.upstream.behave(endlessStream(50));
      const started = Date.now();
      const { response, text } = await h.send(PATH, { json: { query: 'hi', streaming: true } });
      assert.equal(response.status, 200);
      assert.ok(Date.now() - started >= 400, 'ended before the cap');
      assert.match(text, /data: \[ERROR\]STREAM_TOO_LONG\n\n$/);
      const last = (await events(text)).at(-1);
      assert.ok(last?.type === 'error' && last.code === 'STREAM_TOO_LONG' && last.partialAnswer.startsWith('more '), JSON.stringify(last));
      await h.upstream.waitFor(() => h.upstream.requests.at(-1)!.closedEarly);
      assert.ok(h.logs.some((entry) => entry.level === 'warn' && /maxStreamMs/.test(entry.message)));
    });

    test('a stream that grows past maxStreamBytes is closed with [ERROR]STREAM_TOO_LARGE, never passing more than the cap', async () => {
      // 1 KiB events quickly: the byte cap comes long before the duration cap.
      h.upstream.behave(async (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        const event = `event: answer\ndata: ${'x'.repeat(1000)}\n\n`;
        while (!res.destroyed) {
          res.write(event);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      });
      const { text } = await h.send(PATH, { json: { query: 'hi', streaming: true } });
      const error = 'data: [ERROR]STREAM_TOO_LARGE\n\n';
      assert.ok(text.endsWith(error), text.slice(-200));
      assert.ok(Buffer.byteLength(text) - error.length <= 4000, `passed ${Buffer.byteLength(text)} bytes`);
      const last = (await events(text)).at(-1);
      assert.ok(last?.type === 'error' && last.code === 'STREAM_TOO_LARGE');
      await h.upstream.waitFor(() => h.upstream.requests.at(-1)!.closedEarly);
      assert.ok(h.logs.some((entry) => /maxStreamBytes/.test(entry.message)));
    });

    test('the duration cap holds for a visitor who stops reading: the service request is still cancelled', async () => {
      // A byte cap far away, and the service writing as fast as it is read:
      // once the visitor's buffers are full nothing is read, so only the clock can end it.
      const big = await startProxyHarness({ maxStreamMs: 400, maxStreamBytes: 1 << 30, perAddressLimit: false, perVisitorLimit: false, ...(makeFetch ? { fetch: makeFetch() } : {}) });
      let writesAfterFull = 0;
      big.upstream.behave(async (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        const event = `event: answer\ndata: ${'y'.repeat(16 * 1024)}\n\n`;
        while (!res.destroyed) {
          if (!res.write(event)) {
            writesAfterFull++;
            await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
          }
        }
      });
      const target = new URL(big.url);
      const body = JSON.stringify({ query: 'hi', streaming: true });
      const req = request({ host: target.hostname, port: target.port, path: PATH, method: 'POST', headers: { origin: SITE, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        // Never read: the response stays paused.
        res.pause();
      });
      req.on('error', () => {});
      req.end(body);
      try {
        await big.upstream.waitFor(() => big.upstream.requests.length === 1 && big.upstream.requests[0]!.closedEarly, 10_000);
        assert.ok(writesAfterFull > 0, 'the service was never held back, so the visitor was still reading');
      } finally {
        req.destroy();
        await big.close();
      }
    });
  });
