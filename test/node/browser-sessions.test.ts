// The proxies the browser tests ask with the human check on (test/support/browser-sessions.ts), asked side by side as
// the five browsers of a CI run ask them: one test server, one stand-in of Cloudflare's siteverify, many tests at once.
// Each test's pass must name its own page's hostname whatever other tests ask meanwhile (a loaded CI run once failed
// a question in Chromium with 403 HUMAN_CHECK_FAILED: another browser's request had set the hostname a pass reports).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { solveSessionChallenges, type SessionChallenge } from '../../src/protocol/index.js';
import { sessionRoute, stopSiteverify } from '../support/browser-sessions.js';

const PAGE = 'http://localhost:8000';
const noService = async (): Promise<Response> => {
  throw new Error('no question is asked here');
};
const ask = (scope: string, route: string, init: RequestInit = {}, origin: string | null = PAGE) =>
  sessionRoute(`/scripted/sessions/turnstile/${scope}${route}`, new Request(`http://127.0.0.1/scripted/sessions/turnstile/${scope}${route}`, { ...init, headers: { 'content-type': 'application/json', ...(origin ? { origin } : {}) } }), noService) as Promise<Response>;
const post = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body) });

describe("the browser tests' proxies with the human check on, asked side by side", () => {
  after(stopSiteverify);

  test("a session is granted on its page's pass while another test's page, on another host, asks its proxy meanwhile", async () => {
    const scope = `side-by-side-${Date.now()}`;
    const { challenges } = (await (await ask(scope, '/sessions/challenge', post({}))).json()) as { challenges: SessionChallenge[] };
    const solutions = await solveSessionChallenges(challenges);
    let settled = false;
    const granted = ask(scope, '/sessions', post({ challenges, solutions, turnstileToken: 'XXXX.DUMMY.TOKEN.XXXX.1' })).finally(() => (settled = true));
    // Until it is answered: another test's features route (a GET: no Origin) and its challenge from a page on 127.0.0.1.
    for (let other = 0; !settled; other++) {
      await ask(`${scope}-other-${other}`, '/features', {}, null);
      await ask(`${scope}-other-${other}`, '/sessions/challenge', post({}), 'http://127.0.0.1:8000');
    }
    const response = await granted;
    assert.equal(response.status, 201, await response.text());
  });
});
