import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync } from 'node:zlib';
import { createNodeFetch } from '../../src/proxy/node/index.js';

// The Node entry's upstream fetch, on its own: what the proxy suites don't reach.
describe('createNodeFetch', () => {
  const fetchNode = createNodeFetch();
  let base = '';
  let closedEarly = 0;
  /** Called when the service has a /slow request: a test stops it then, not after a guessed delay. */
  let slowArrived = () => {};
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      if (path === '/redirect') {
        res.writeHead(307, { Location: '/echo' }).end();
      } else if (path === '/deflate') {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'deflate' }).end(deflateSync('{"coding":"deflate"}'));
      } else if (path === '/br') {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'br' }).end(brotliCompressSync('{"coding":"br"}'));
      } else if (path === '/slow') {
        res.on('close', () => {
          if (!res.writableEnded) closedEarly++;
        });
        setTimeout(() => res.end('late'), 3000).unref();
        slowArrived();
      } else {
        res.writeHead(200, { 'Content-Type': 'application/json', 'X-Method': req.method ?? '' }).end(JSON.stringify({ body, length: req.headers['content-length'] ?? null, type: req.headers['content-type'] ?? null }));
      }
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

  test('sends the method, headers and body with its length, and reads the answer', async () => {
    const response = await fetchNode(`${base}/echo`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"query":"héllo"}', redirect: 'manual' });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('x-method'), 'POST');
    assert.deepEqual(await response.json(), { body: '{"query":"héllo"}', length: String(Buffer.byteLength('{"query":"héllo"}')), type: 'application/json' });
  });

  test('never follows a redirect: the 3xx comes back as is', async () => {
    const response = await fetchNode(`${base}/redirect`, { method: 'POST', body: '{}', redirect: 'manual' });
    assert.equal(response.status, 307);
    assert.equal(response.headers.get('location'), '/echo');
  });

  test('decodes deflate and br bodies as fetch does', async () => {
    assert.deepEqual(await (await fetchNode(`${base}/deflate`, { redirect: 'manual' })).json(), { coding: 'deflate' });
    assert.deepEqual(await (await fetchNode(`${base}/br`, { redirect: 'manual' })).json(), { coding: 'br' });
  });

  test('an abort before the answer rejects with the abort reason and closes the request', async () => {
    const controller = new AbortController();
    slowArrived = () => controller.abort();
    const pending = fetchNode(`${base}/slow`, { method: 'POST', body: '{}', redirect: 'manual', signal: controller.signal });
    await assert.rejects(pending, { name: 'AbortError' });
    const deadline = Date.now() + 2000;
    while (closedEarly === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(closedEarly, 1);
  });

  test('a request outside its scope goes to the global fetch, which follows the redirect', async () => {
    const response = await fetchNode(`${base}/redirect`, { method: 'POST', body: '{}' });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('x-method'), 'POST');
  });

  test('an unreachable service rejects with a TypeError, as fetch does', async () => {
    await assert.rejects(fetchNode('http://127.0.0.1:1/', { redirect: 'manual' }), TypeError);
  });
});
