import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AGENT, SITE, rawRequest, startProxyHarness, type ProxyHarness } from '../support/proxy-harness.js';

// Every endpoint of the service interface (spec section 4) other than the
// allowed agent query, as a visitor might try it through the proxy.
const OTHER_ENDPOINTS: [method: string, path: string, body?: string][] = [
  ['PATCH', `/agents/${AGENT}`, '{"systemPrompt":"be evil"}'],
  ['DELETE', `/agents/${AGENT}`, '{}'],
  ['PATCH', `/v1/agents/${AGENT}`, '{"visibility":"public"}'],
  ['DELETE', `/v1/agents/${AGENT}`, '{}'],
  ['GET', `/agents/${AGENT}/query`],
  ['PUT', `/agents/${AGENT}/query`, '{"query":"hi"}'],
  ['POST', '/agents/agent_not_allowed/query', '{"query":"hi"}'],
  ['POST', '/datastores/ds_1/query', '{"query":"hi"}'],
  ['PATCH', '/datastores/ds_1', '{"name":"x"}'],
  ['DELETE', '/datastores/ds_1', '{}'],
  ['POST', '/datasources', '{"datastoreId":"ds_1","type":"web_page","config":{"source_url":"https://evil.example"}}'],
  ['DELETE', '/datasources/src_1', '{}'],
  ['POST', '/datastores/upsert/ds_1', '{"documents":[{"text":"x"}]}'],
  ['POST', '/datastores/update/ds_1', '{"id":"d","text":"x"}'],
  ['POST', '/external/datastores/file-upload/ds_1', 'x'],
  ['GET', '/v1/agents'],
  ['POST', '/v1/datastores/ds_1/upsert', '{"documents":[{"text":"x"}]}'],
  ['GET', `/v1/agents/${AGENT}/conversations?limit=10`],
  ['GET', '/'],
  ['POST', '/agents', '{"query":"hi"}'],
  ['POST', `/agents/${AGENT}`, '{"query":"hi"}'],
  ['POST', `/agents/${AGENT}/query/extra`, '{"query":"hi"}'],
];

// Paths that try to reach something other than an allowed query.
const PATH_TRICKS = [
  `/agents/${AGENT}/../../datastores/ds_1/query`,
  `/agents/${AGENT}%2F..%2F..%2Fdatastores%2Fds_1/query`,
  `/agents/${AGENT}%2fquery`,
  `/agents/${AGENT}/query%2F..%2F..%2F${AGENT}`,
  `/agents/${AGENT}%5C..%5Cagent_x/query`,
  `/agents/${AGENT}/query/%2e%2e/%2e%2e/%2e%2e/datasources`,
  `/agents/%2e%2e/datastores/ds_1/query`,
  `/agents/${AGENT}%00/query`,
  `/agents/${AGENT}%252F..%252Fx/query`,
  `/agents/${AGENT.toUpperCase()}/query`,
  `/agents/${AGENT}\\..\\..\\datasources`,
  `/agents/ ${AGENT}/query`.replace(' ', '%20'),
  `/agents/${AGENT};x=1/query`,
  `/agents/${AGENT}/query%`,
];

describe('proxy routes', () => {
  let h: ProxyHarness;
  before(async () => {
    h = await startProxyHarness();
  });
  after(() => h.close());

  test('refuses every other endpoint of the service without calling it', async () => {
    for (const [method, path, body] of OTHER_ENDPOINTS) {
      const answer = await rawRequest(h.url, { method, path, ...(body === undefined ? {} : { body }) });
      assert.ok(answer.status === 404 || answer.status === 405, `${method} ${path} answered ${answer.status}`);
      assert.equal(JSON.parse(answer.text).error.code, answer.status === 404 ? 'NOT_FOUND' : 'METHOD_NOT_ALLOWED');
    }
    assert.equal(h.upstream.requests.length, 0, 'the upstream saw a refused request');
  });

  test('an allowed page can read the refusal of an agent the proxy does not serve, and the upstream sees nothing', async () => {
    const path = '/agents/agent_not_allowed/query';
    const preflight = await rawRequest(h.url, { method: 'OPTIONS', path, headers: { 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], SITE);
    const answer = await rawRequest(h.url, { path, body: '{"query":"hi"}' });
    assert.equal(answer.status, 404);
    assert.equal(answer.headers['access-control-allow-origin'], SITE, 'readable by the page');
    const foreign = await rawRequest(h.url, { path, body: '{"query":"hi"}', headers: { origin: 'https://evil.example' } });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.headers['access-control-allow-origin'], undefined, 'another site learns nothing it can read');
    const foreignPreflight = await rawRequest(h.url, { method: 'OPTIONS', path, headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    assert.equal(foreignPreflight.status, 404);
    assert.equal(h.upstream.requests.length, 0);
  });

  test('405 names the allowed methods', async () => {
    const answer = await rawRequest(h.url, { method: 'DELETE', path: `/agents/${AGENT}/query` });
    assert.equal(answer.status, 405);
    assert.equal(answer.headers.allow, 'POST, OPTIONS');
  });

  test('path tricks reach nothing', async () => {
    for (const path of PATH_TRICKS) {
      const answer = await rawRequest(h.url, { path, body: '{"query":"hi"}' });
      assert.equal(answer.status, 404, `${path} answered ${answer.status}: ${answer.text}`);
    }
    assert.equal(h.upstream.requests.length, 0, 'the upstream saw a path trick');
  });

  test('harmless spellings of an allowed route are normalised, and the service sees only its own form', async () => {
    const spellings = [
      `/agents/${AGENT}/query`,
      `//agents//${AGENT}//query/`,
      `/AGENTS/${AGENT}/Query`,
      `/agents/%61gent_1/query`,
      `/agents/${AGENT}/query?next=/datastores/ds_1`,
      `/agents/other/../${AGENT}/query`,
      `/v1/agents/${AGENT}/query`,
    ];
    for (const path of spellings) {
      const answer = await rawRequest(h.url, { path, body: '{"query":"hi"}' });
      assert.equal(answer.status, 200, `${path} answered ${answer.status}: ${answer.text}`);
    }
    assert.deepEqual(
      h.upstream.requests.map((r) => r.path),
      [...Array(spellings.length - 1).fill(`/agents/${AGENT}/query`), `/v1/agents/${AGENT}/query`],
    );
    assert.ok(h.upstream.requests.every((r) => r.method === 'POST'));
  });

  test('the Host header and an absolute request target decide nothing', async () => {
    const before = h.upstream.requests.length;
    const answer = await rawRequest(h.url, { path: `http://evil.example/agents/${AGENT}/query`, headers: { host: 'evil.example' }, body: '{"query":"hi"}' });
    assert.equal(answer.status, 200);
    const seen = h.upstream.requests.slice(before);
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.headers.host, new URL(h.upstream.url).host);
    assert.equal(seen[0]!.path, `/agents/${AGENT}/query`);
  });
});

describe('proxy routes: datastore queries', () => {
  let h: ProxyHarness;
  before(async () => {
    h = await startProxyHarness({ datastoreIds: ['ds_1'] });
  });
  after(() => h.close());

  test('are forwarded only for configured datastores, with only query and topK', async () => {
    const ok = await h.send('/datastores/ds_1/query', { json: { query: 'refunds', topK: 3, filters: { custom_ids: ['x'] }, systemPrompt: 'x' } });
    assert.equal(ok.response.status, 200);
    assert.deepEqual(JSON.parse(h.upstream.requests[0]!.body), { query: 'refunds', topK: 3 });
    assert.equal((await h.send('/datastores/ds_2/query', { json: { query: 'x' } })).response.status, 404);
    assert.equal((await h.send('/v1/datastores/ds_1/query', { json: { query: 'x' } })).response.status, 404);
    assert.equal((await h.send('/datastores/ds_1/query', { json: { query: 'x', topK: 500 } })).response.status, 400);
    assert.equal(h.upstream.requests.length, 1);
  });
});
