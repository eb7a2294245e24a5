// The typed client against a real kagent proxy with visitor sessions on: it earns
// a session itself, renews it once when refused for it (sending the question once
// more, never twice), and reads the new error codes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { KagentClient, KagentError } from '../../src/client/index.js';
import { SESSION_ERROR_CODES, SESSION_HEADER } from '../../src/protocol/index.js';
import { AGENT, SITE, startProxyHarness, type ProxyHarness } from '../support/proxy-harness.js';
import { OTHER_SECRET, SESSION_SECRET, TEST_DIFFICULTY } from '../support/proxy-sessions.js';
import { TURNSTILE_PASS, startTurnstileStandIn } from '../support/turnstile-stand-in.js';

const options = { sessionDifficulty: Number(TEST_DIFFICULTY), perAddressLimit: false, perVisitorLimit: false, sessionsPerAddress: false } as const;

describe('client with visitor sessions', () => {
  let h: ProxyHarness;
  before(async () => (h = await startProxyHarness({ ...options, sessionSecret: SESSION_SECRET })));
  after(() => h.close());

  test('without the option a query is refused with SESSION_REQUIRED, which says to get a session', async () => {
    const client = new KagentClient({ baseUrl: h.url, headers: { Origin: SITE } });
    await assert.rejects(client.agents.query(AGENT, { query: 'hi' }), (error: unknown) => error instanceof KagentError && error.status === 401 && error.code === SESSION_ERROR_CODES.required && error.needsNewSession);
  });

  test('with it, the client earns a session before its first query and sends the token with each, the stream too', async () => {
    const client = new KagentClient({ baseUrl: h.url, headers: { Origin: SITE }, sessions: true });
    const before = h.upstream.requests.length;
    const answer = await client.agents.query(AGENT, { query: 'hi' });
    assert.ok(answer.answer.length > 0);
    let text = '';
    for await (const event of client.agents.stream(AGENT, { query: 'hi' })) if (event.type === 'answer') text += event.text;
    assert.ok(text.length > 0);
    assert.equal(h.upstream.requests.length, before + 2, 'each question reached the service once');
  });

  test('sessions.start, challenge and create can be used one by one', async () => {
    const client = new KagentClient({ baseUrl: h.url, headers: { Origin: SITE } });
    const grant = await client.sessions.start();
    assert.match(grant.token, /^v2\./);
    const response = await fetch(`${h.url}/agents/${AGENT}/query`, { method: 'POST', headers: { origin: SITE, 'content-type': 'application/json', [SESSION_HEADER]: grant.token }, body: JSON.stringify({ query: 'hi' }) });
    assert.equal(response.status, 200);
    await response.text();
  });
});

test('a token the proxy no longer accepts is renewed and the question sent once more, exactly once', async () => {
  const first = await startProxyHarness({ ...options, sessionSecret: OTHER_SECRET });
  const second = await startProxyHarness({ ...options, sessionSecret: SESSION_SECRET });
  // The client talks to one address; behind it, the proxy is replaced by one with another secret, where its token is invalid.
  let target = first.url;
  const client = new KagentClient({ baseUrl: first.url, headers: { Origin: SITE }, sessions: true, fetch: (input, init) => fetch(String(input).replace(first.url, target), init) });
  try {
    await client.agents.query(AGENT, { query: 'hi' });
    target = second.url;
    const answer = await client.agents.query(AGENT, { query: 'again' });
    assert.ok(answer.answer.length > 0);
    const queries = second.upstream.requests.filter((r) => r.path.endsWith('/query'));
    assert.equal(queries.length, 1, 'the question reached the service once');
    const refusals = second.logs.filter((entry) => entry.code === SESSION_ERROR_CODES.invalid);
    assert.equal(refusals.length, 1, 'one refusal, then the renewed session');
  } finally {
    await first.close();
    await second.close();
  }
});

test("the site's daily budget spent reads as budgetSpent, with when to come back", async () => {
  const h = await startProxyHarness({ ...options, sessionSecret: SESSION_SECRET, dailyBudget: 1 });
  try {
    const client = new KagentClient({ baseUrl: h.url, headers: { Origin: SITE }, sessions: true });
    await client.agents.query(AGENT, { query: 'hi' });
    await assert.rejects(client.agents.query(AGENT, { query: 'hi' }), (error: unknown) => error instanceof KagentError && error.budgetSpent && error.status === 429 && (error.retryAfter ?? 0) > 0 && !error.needsNewSession);
  } finally {
    await h.close();
  }
});

test('with the human check on, the client asks its turnstileToken option for a fresh token with the site key, once per session (renewals too)', async () => {
  const standIn = await startTurnstileStandIn(new URL(SITE).hostname);
  const h = await startProxyHarness({ ...options, sessionSecret: SESSION_SECRET, turnstileSecret: TURNSTILE_PASS, turnstileSiteKey: '1x00000000000000000000AA', turnstileVerifyUrl: standIn.url });
  try {
    const asked: string[] = [];
    const client = new KagentClient({ baseUrl: h.url, headers: { Origin: SITE }, sessions: true, turnstileToken: async (siteKey) => (asked.push(siteKey), `token-${asked.length}`) });
    await client.agents.query(AGENT, { query: 'hi' });
    await client.sessions.start();
    assert.deepEqual(asked, ['1x00000000000000000000AA', '1x00000000000000000000AA']);
    assert.deepEqual(standIn.calls.map((form) => form.get('response')), ['token-1', 'token-2'], 'each session verified with its own token');
    // Without the option, the proxy refuses the session: the page must give a token.
    const bare = new KagentClient({ baseUrl: h.url, headers: { Origin: SITE }, sessions: true });
    await assert.rejects(bare.agents.query(AGENT, { query: 'hi' }), (error: unknown) => error instanceof KagentError && error.code === SESSION_ERROR_CODES.humanCheckFailed);
  } finally {
    await h.close();
    await standIn.close();
  }
});
