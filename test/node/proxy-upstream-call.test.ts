import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { createUpstreamCall } from '../../src/proxy/node/upstream-call.js';
import type { UpstreamCall } from '../../src/proxy/core/upstream.js';

// The Node entry's call to the service (undici's pool), on its own: what the proxy suites don't reach.
describe('the Node upstream call', () => {
  const call = createUpstreamCall({ keepAliveMs: 4000 });
  let base = '';
  /** Service requests whose connection closed before their answer ended, by path (a test counts only its own). */
  const closedEarly = new Map<string, number>();
  /** Called when the service has a /slow request: a test stops it then, not after a guessed delay. */
  let slowArrived = () => {};
  /** What the service wrote of /endless before its writes backed up. */
  let backedUp: ((written: number) => void) | undefined;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      res.on('close', () => {
        if (!res.writableEnded) closedEarly.set(path, (closedEarly.get(path) ?? 0) + 1);
      });
      const json = { 'Content-Type': 'application/json' };
      if (path === '/deflate') res.writeHead(200, { ...json, 'Content-Encoding': 'deflate' }).end(deflateSync('{"coding":"deflate"}'));
      else if (path === '/br') res.writeHead(200, { ...json, 'Content-Encoding': 'br' }).end(brotliCompressSync('{"coding":"br"}'));
      else if (path === '/gzip') res.writeHead(200, { ...json, 'Content-Encoding': 'gzip' }).end(gzipSync('{"coding":"gzip"}'));
      // 64 MiB of zeros in about 64 KiB: only the cap's worth may ever be decoded.
      else if (path === '/bomb') res.writeHead(200, { ...json, 'Content-Encoding': 'gzip' }).end(gzipSync(Buffer.alloc(64 * 1024 * 1024)));
      else if (path === '/slow') {
        setTimeout(() => res.end('late'), 3000).unref();
        slowArrived();
      }
      else if (path === '/endless') {
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        const chunk = Buffer.alloc(64 * 1024, 'a');
        let written = 0;
        const write = () => {
          while (!res.destroyed && written < 64 * 1024 * 1024) {
            written += chunk.byteLength;
            if (!res.write(chunk)) {
              backedUp?.(written);
              res.once('drain', write);
              return;
            }
          }
          // Everything went out without backing up once: the client read it all ahead of its reader.
          backedUp?.(written);
        };
        write();
      } else res.writeHead(200, { ...json, 'X-Method': req.method ?? '' }).end(JSON.stringify({ body, length: req.headers['content-length'] ?? null, type: req.headers['content-type'] ?? null, key: req.headers.authorization ?? null }));
    });
  });
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const post = (path: string, onCancel: (stop: () => void) => void = () => {}, using: UpstreamCall = call) => using(new URL(path, base), { headers: { Authorization: 'Bearer k', 'Content-Type': 'application/json' }, body: '{"query":"héllo"}', onCancel });
  const text = async (path: string) => {
    const reply = await post(path);
    const { bytes, complete } = await reply.readCapped(1024 * 1024);
    assert.ok(complete);
    return JSON.parse(Buffer.from(bytes).toString('utf8')) as unknown;
  };
  const closedEarlyReaches = async (path: string, count: number) => {
    const deadline = Date.now() + 5000;
    while ((closedEarly.get(path) ?? 0) < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(closedEarly.get(path) ?? 0, count);
  };

  test('sends a POST with the headers and the body with its length, and reads the answer', async () => {
    const reply = await post('/echo');
    assert.equal(reply.status, 200);
    assert.equal(reply.header('x-method'), 'POST');
    assert.equal(reply.header('content-type'), 'application/json');
    assert.equal(reply.header('x-absent'), null);
    const { bytes } = await reply.readCapped(1024);
    assert.deepEqual(JSON.parse(Buffer.from(bytes).toString('utf8')), { body: '{"query":"héllo"}', length: String(Buffer.byteLength('{"query":"héllo"}')), type: 'application/json', key: 'Bearer k' });
  });

  test('decodes gzip, deflate and br answers as fetch does', async () => {
    assert.deepEqual(await text('/gzip'), { coding: 'gzip' });
    assert.deepEqual(await text('/deflate'), { coding: 'deflate' });
    assert.deepEqual(await text('/br'), { coding: 'br' });
  });

  test('a compressed answer larger than the cap once decoded is cut at the cap', async () => {
    const reply = await post('/bomb');
    const { bytes, complete } = await reply.readCapped(1024 * 1024);
    assert.equal(complete, false);
    assert.equal(bytes.byteLength, 1024 * 1024);
  });

  test('a stop before the answer rejects with an AbortError and closes the service request', async () => {
    const before = closedEarly.get('/slow') ?? 0;
    let stop: (() => void) | undefined;
    slowArrived = () => stop!();
    const pending = post('/slow', (s) => (stop = s));
    await assert.rejects(pending, { name: 'AbortError' });
    slowArrived = () => {};
    await closedEarlyReaches('/slow', before + 1);
  });

  test('a stop asked as the call starts still stops it', async () => {
    await assert.rejects(
      post('/slow', (stop) => stop()),
      { name: 'AbortError' },
    );
  });

  test('a relayed answer is read from the service only as fast as its reader reads it, and cancelling it closes the request', async () => {
    const before = closedEarly.get('/endless') ?? 0;
    const written = new Promise<number>((resolve) => (backedUp = resolve));
    const reply = await post('/endless');
    const reader = reply.stream().getReader();
    const first = await reader.read();
    assert.ok(first.value && first.value.byteLength > 0);
    // Nothing more is read: the service's writes back up long before its 64 MiB are out.
    assert.ok((await written) < 32 * 1024 * 1024, 'the answer was read ahead of its reader');
    await reader.cancel();
    await closedEarlyReaches('/endless', before + 1);
  });

  test('an unreachable service rejects with a TypeError, as fetch does', async () => {
    await assert.rejects(call(new URL('http://127.0.0.1:1/'), { headers: {}, body: '{}', onCancel: () => {} }), TypeError);
  });

  test('waits for a connection beyond maxSockets rather than opening more', async () => {
    const one = createUpstreamCall({ keepAliveMs: 4000, maxSockets: 1 });
    const connections = new Set<unknown>();
    const onConnection = (socket: unknown) => connections.add(socket);
    server.on('connection', onConnection);
    try {
      const replies = await Promise.all([post('/echo', undefined, one), post('/echo', undefined, one), post('/echo', undefined, one)]);
      for (const reply of replies) assert.equal((await reply.readCapped(1024)).complete, true);
      assert.equal(connections.size, 1);
    } finally {
      server.off('connection', onConnection);
    }
  });

  test('a stop while waiting for a connection rejects at once, without waiting for one to free up', async () => {
    // Last: the stopped request still gets a connection of its own once the first is stopped, and is stopped there.
    const one = createUpstreamCall({ keepAliveMs: 4000, maxSockets: 1 });
    let stopFirst: (() => void) | undefined;
    let stopSecond: (() => void) | undefined;
    // The only connection is held by a request the service answers after 3 s.
    const first = post('/slow', (stop) => (stopFirst = stop), one);
    const second = post('/echo', (stop) => (stopSecond = stop), one);
    stopSecond!();
    const winner = await Promise.race([second.then(() => 'answered', (error: Error) => error.name), first.then(() => 'the held connection came free first')]);
    assert.equal(winner, 'AbortError');
    stopFirst!();
    await assert.rejects(first, { name: 'AbortError' });
  });
});

