import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FEATURES_ROUTE, ORIGIN_NOT_ALLOWED, readProxyFeatures } from '../../src/protocol/index.js';
import { SITE, rawRequest, startProxyHarness, type ProxyHarness } from '../support/proxy-harness.js';
import { SESSION_SECRET } from '../support/proxy-sessions.js';

/** `GET {endpoint}/features` as a page sends it: a simple request with the page's Origin, nothing else. */
const features = (h: ProxyHarness, origin = SITE, path = FEATURES_ROUTE) => fetch(h.url + path, { headers: { origin } });

describe('GET /features', () => {
  let off: ProxyHarness;
  let on: ProxyHarness;
  before(async () => {
    off = await startProxyHarness({ basePath: '/api/kagent' });
    on = await startProxyHarness({ sessionSecret: SESSION_SECRET });
  });
  after(async () => {
    await off.close();
    await on.close();
  });

  test('says whether visitor sessions are on, in every mode, and a browser may keep it a day', async () => {
    const answerOff = await features(off, SITE, '/api/kagent' + FEATURES_ROUTE);
    assert.equal(answerOff.status, 200);
    assert.deepEqual(await answerOff.json(), { sessions: false, feedback: false });
    const answerOn = await features(on);
    assert.equal(answerOn.status, 200);
    assert.deepEqual(await answerOn.json(), { sessions: true, feedback: false });
    for (const answer of [answerOff, answerOn]) {
      assert.equal(answer.headers.get('cache-control'), 'max-age=86400');
      assert.match(answer.headers.get('vary') ?? '', /Origin/);
      assert.equal(answer.headers.get('access-control-allow-origin'), SITE);
      assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
    }
    // The route's words in any case, as the others'; nothing went upstream.
    assert.equal((await features(on, SITE, '/Features')).status, 200);
    assert.equal(on.upstream.requests.length + off.upstream.requests.length, 0);
  });

  test('gives a refused origin a refusal it can read, naming that origin and KAGENT_ALLOWED_ORIGINS, kept by no cache', async () => {
    const refused = await features(off, 'https://staging.example.com', '/api/kagent/features');
    assert.equal(refused.status, 403);
    // Readable by that page, and by it alone: this answer only.
    assert.equal(refused.headers.get('access-control-allow-origin'), 'https://staging.example.com');
    assert.equal(refused.headers.get('cache-control'), 'no-store');
    const { error } = await refused.json();
    assert.equal(error.code, ORIGIN_NOT_ALLOWED);
    assert.match(error.message, /https:\/\/staging\.example\.com/);
    assert.match(error.message, /KAGENT_ALLOWED_ORIGINS/);
    // The query route still refuses it as before: no Allow-Origin there.
    const query = await off.send('/api/kagent/agents/agent_1/query', { json: { query: 'hi' }, headers: { origin: 'https://staging.example.com' } });
    assert.equal(query.response.status, 403);
    assert.equal(query.response.headers.get('access-control-allow-origin'), null);
    assert.ok(off.logs.some((entry) => entry.message === 'refused: the origin is not allowed' && entry.route === 'features'));
  });

  test('answers a request without Origin (a same-origin GET, a server) without CORS headers, and refuses methods other than GET', async () => {
    // A browser sends no Origin with a same-origin GET: a proxy mounted on the site's own origin must not refuse its page.
    const bare = await rawRequest(off.url, { method: 'GET', path: '/api/kagent/features', headers: { origin: '' } });
    assert.equal(bare.status, 200);
    assert.deepEqual(JSON.parse(bare.text), { sessions: false, feedback: false });
    assert.equal(bare.headers['access-control-allow-origin'], undefined);
    // An Origin that is no origin is refused without being echoed.
    const odd = await rawRequest(off.url, { method: 'GET', path: '/api/kagent/features', headers: { origin: 'x'.repeat(300) } });
    assert.equal(odd.status, 403);
    assert.equal(odd.headers['access-control-allow-origin'], undefined);
    assert.doesNotMatch(odd.text, /xxxx/);
    const post = await on.send(FEATURES_ROUTE, { json: {} });
    assert.equal(post.response.status, 405);
    assert.equal(post.response.headers.get('allow'), 'GET, OPTIONS');
    const preflight = await rawRequest(on.url, { method: 'OPTIONS', path: FEATURES_ROUTE, headers: { 'access-control-request-method': 'GET' } });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers['access-control-allow-methods'], 'GET');
  });

  test("a page reads anything but the route's own answer as all off", () => {
    for (const body of [undefined, null, 'sessions', [], { sessions: 'yes' }, { error: { code: 'NOT_FOUND' } }]) assert.deepEqual(readProxyFeatures(body), { sessions: false, feedback: false });
    assert.deepEqual(readProxyFeatures({ sessions: true, feedback: true, later: 1 }), { sessions: true, feedback: true });
  });
});
