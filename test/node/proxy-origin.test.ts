import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AGENT, SITE, rawRequest, startProxyHarness, type ProxyHarness } from '../support/proxy-harness.js';

const PATH = `/agents/${AGENT}/query`;

describe('proxy origins', () => {
  let h: ProxyHarness;
  before(async () => {
    // One request per window: a preflight that counted would use it up.
    h = await startProxyHarness({ allowedOrigins: [SITE, 'http://localhost:5173/'], perAddressLimit: { max: 1, windowSeconds: 60 }, perVisitorLimit: false });
  });
  after(() => h.close());

  test('answers a preflight from an allowed origin before any rate limit or upstream call', async () => {
    for (let i = 0; i < 3; i++) {
      const answer = await rawRequest(h.url, { method: 'OPTIONS', path: PATH, headers: { 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
      assert.equal(answer.status, 204);
      assert.equal(answer.headers['access-control-allow-origin'], SITE);
      assert.equal(answer.headers['access-control-allow-methods'], 'POST, OPTIONS');
      assert.equal(answer.headers['access-control-allow-headers'], 'Content-Type');
      assert.equal(answer.headers['access-control-allow-credentials'], undefined);
      assert.match(String(answer.headers.vary), /Origin/);
    }
    assert.equal(h.upstream.requests.length, 0);
    // The one request of the window is still there.
    assert.equal((await h.send(PATH, { json: { query: 'hi' } })).response.status, 200);
  });

  test('matches scheme, host and port exactly', async () => {
    const refused = ['https://www.example.com:8443', 'http://www.example.com', 'https://example.com', 'https://www.example.com.evil.example', 'https://evil.example', 'null', 'http://localhost:5174', 'https://www.example.com/'];
    for (const origin of refused) {
      const preflight = await rawRequest(h.url, { method: 'OPTIONS', path: PATH, headers: { origin, 'access-control-request-method': 'POST' } });
      assert.equal(preflight.status, 403, `preflight from ${origin}`);
      assert.equal(preflight.headers['access-control-allow-origin'], undefined);
      const post = await h.send(PATH, { json: { query: 'hi' }, headers: { origin } });
      assert.equal(post.response.status, 403, `POST from ${origin}`);
      assert.equal(JSON.parse(post.text).error.code, 'FORBIDDEN');
      assert.equal(post.response.headers.get('access-control-allow-origin'), null);
    }
    const local = await rawRequest(h.url, { method: 'OPTIONS', path: PATH, headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST' } });
    assert.equal(local.status, 204);
    assert.equal(h.upstream.requests.length, 1);
  });

  test('refuses a request without Origin unless told otherwise', async () => {
    const answer = await rawRequest(h.url, { path: PATH, headers: { origin: '' }, body: '{"query":"hi"}' });
    assert.equal(answer.status, 403);
    assert.equal(h.upstream.requests.length, 1);
  });
});

describe('proxy origins: options', () => {
  test('"*" allows any origin, without credentials', async () => {
    const h = await startProxyHarness({ allowedOrigins: '*' });
    try {
      const { response } = await h.send(PATH, { json: { query: 'hi' }, headers: { origin: 'https://anyone.example' } });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('access-control-allow-origin'), '*');
      assert.equal(response.headers.get('access-control-allow-credentials'), null);
    } finally {
      await h.close();
    }
  });

  test('allowRequestsWithoutOrigin lets server-side callers through, still checking a given Origin', async () => {
    const h = await startProxyHarness({ allowRequestsWithoutOrigin: true });
    try {
      assert.equal((await rawRequest(h.url, { path: PATH, headers: { origin: '' }, body: '{"query":"hi"}' })).status, 200);
      assert.equal((await h.send(PATH, { json: { query: 'hi' }, headers: { origin: 'https://evil.example' } })).response.status, 403);
    } finally {
      await h.close();
    }
  });

  test('no allowed origins configured: every browser origin is refused', async () => {
    const h = await startProxyHarness({ allowedOrigins: [] });
    try {
      assert.equal((await h.send(PATH, { json: { query: 'hi' } })).response.status, 403);
      assert.equal(h.upstream.requests.length, 0);
    } finally {
      await h.close();
    }
  });
});
