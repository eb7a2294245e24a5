// Visitor sessions (issue 22): with a session secret set, a query reaches the
// service only with a valid token earned by a proof of work; every refusal kind
// has its own code; budgets hold whatever visitorId says; secrets rotate.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SESSION_ERROR_CODES, SESSION_HEADER, QUESTIONS_LEFT_HEADER, solveSessionChallenges } from '../../src/protocol/index.js';
import { createProxyCore, type VisitorRequest } from '../../src/proxy/core/index.js';
import { Sessions, isRefusal, loadFactor, BLOCK_LOAD_SHARE_PER_MINUTE, CHALLENGE_COST, CHALLENGE_PARTS } from '../../src/proxy/core/sessions/index.js';
import { MemoryRateLimitStore } from '../../src/proxy/index.js';
import type { UpstreamCall } from '../../src/proxy/core/upstream.js';
import { AGENT, SITE, TEST_KEY, startProxyHarness, type ProxyHarness } from '../support/proxy-harness.js';
import { HARNESS_AUDIENCE, OTHER_SECRET, SESSION_SECRET, TEST_DIFFICULTY, earnSession, getChallenge, mint, withSession } from '../support/proxy-sessions.js';
import { answer, answerLeftOpen, heldStream } from '../support/proxy-upstream.js';
import { hasRedisServer, startRedis, type TestRedis } from '../support/proxy-redis.js';
import { connectRedisRateLimitStore } from '../../src/proxy/stores/redis-node.js';
import { DUMMY_TOKEN, TURNSTILE_FAIL, TURNSTILE_PASS, TURNSTILE_SPENT, startTurnstileStandIn, type TurnstileStandIn } from '../support/turnstile-stand-in.js';

const PATH = `/agents/${AGENT}/query`;
const OTHER_SITE = 'https://docs.example.org';

function assertNoSecret(text: string, where: string): void {
  for (const secret of [SESSION_SECRET, OTHER_SECRET]) for (const form of [secret, encodeURIComponent(secret)]) assert.ok(!text.includes(form), `a session secret leaked in ${where}`);
}

async function ask(h: ProxyHarness, token: string | undefined, { origin = SITE, body = { query: 'hi', visitorId: 'v1' } as Record<string, unknown> } = {}) {
  const headers: Record<string, string> = token === undefined ? { origin } : withSession(token, origin);
  const result = await h.send(PATH, { headers, json: body });
  assertNoSecret(result.text + JSON.stringify([...result.response.headers]), `the answer to ${PATH}`);
  return { status: result.response.status, code: (JSON.parse(result.text || '{}') as { error?: { code?: string } }).error?.code, headers: result.response.headers, text: result.text };
}

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Another last character of a 32-byte base64url value that decodes to the same bytes (its 2 spare bits differ). */
function spareBitsTwin(last: string): string {
  const value = B64URL.indexOf(last);
  return B64URL[value ^ 1]!;
}

/** A new session whose first answer streams and is held by the service until `held.release()`. */
async function holdAnAnswer(h: ProxyHarness) {
  const { grant } = await earnSession(h.url);
  const held = heldStream();
  h.upstream.behave(held.behaviour);
  const first = await fetch(h.url + PATH, { method: 'POST', headers: withSession(grant.token), body: JSON.stringify({ query: 'hi', streaming: true }) });
  assert.equal(first.status, 200);
  return { grant, held, first };
}

/** The keys a challenge asks for on average, all parts together, as its target says. */
const work = async (sessions: Sessions) => {
  const { challenges } = await sessions.challenge(SITE);
  return challenges.reduce((sum, { parameters }) => sum + 2 ** 32 / parameters.keyBelow, 0);
};
const settings = (attempts: number) => ({ secrets: [SESSION_SECRET], audience: HARNESS_AUDIENCE, tokenSeconds: 1800, difficulty: (attempts * CHALLENGE_COST) / 1e6, perSessionLimit: false as const, sessionsPerAddress: false as const });

describe('visitor sessions, off', () => {
  let h: ProxyHarness;
  before(async () => (h = await startProxyHarness()));
  after(() => h.close());

  test('without a secret there are no session routes and queries need no token', async () => {
    assert.equal((await h.send('/sessions/challenge', { json: {} })).response.status, 404);
    assert.equal((await h.send('/sessions', { json: {} })).response.status, 404);
    assert.equal((await ask(h, undefined)).status, 200);
  });
});

describe('visitor sessions, on', () => {
  let h: ProxyHarness;
  before(async () => {
    h = await startProxyHarness({
      allowedOrigins: [SITE, OTHER_SITE],
      sessionSecret: SESSION_SECRET,
      sessionDifficulty: Number(TEST_DIFFICULTY),
      perSessionLimit: { max: 3, windowSeconds: 60 },
      // Tried on their own below: here one address starts many sessions and asks many questions.
      sessionsPerAddress: false,
      perAddressLimit: false,
      perVisitorLimit: false,
    });
  });
  after(async () => {
    for (const entry of h.logs) assertNoSecret(JSON.stringify(entry), 'a log line');
    await h.close();
  });

  test('a page earns a token by solving the challenge, and its question reaches the service with the questions left said', async () => {
    const before = h.upstream.requests.length;
    const { grant, challenge } = await earnSession(h.url);
    assert.equal(challenge.humanCheck, null);
    assert.equal(challenge.turnstileSiteKey, undefined);
    assert.equal(challenge.challenges[0]!.parameters.data?.origin, SITE);
    assert.deepEqual(grant.questions, { max: 3, windowSeconds: 60 });
    assert.equal(grant.expiresInSeconds, 30 * 60);
    const answer = await ask(h, grant.token);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get(QUESTIONS_LEFT_HEADER), '2');
    assert.match(answer.headers.get('access-control-expose-headers') ?? '', new RegExp(QUESTIONS_LEFT_HEADER));
    assert.equal(h.upstream.requests.length, before + 1);
    // The token is the proxy's business: the service never sees it.
    assert.equal(JSON.stringify(h.upstream.requests.at(-1)!.headers).includes(grant.token), false);
  });

  test('the preflight lets a page send the session header', async () => {
    const response = await fetch(h.url + PATH, { method: 'OPTIONS', headers: { origin: SITE, 'access-control-request-method': 'POST', 'access-control-request-headers': `content-type, ${SESSION_HEADER.toLowerCase()}` } });
    assert.equal(response.status, 204);
    assert.match(response.headers.get('access-control-allow-headers') ?? '', new RegExp(SESSION_HEADER, 'i'));
  });

  test('each refusal has its own code, and none reaches the service: missing, tampered, expired, another origin', async () => {
    const before = h.upstream.requests.length;
    const { grant } = await earnSession(h.url);
    const [version, payload, signature] = grant.token.split('.') as [string, string, string];
    const flipped = (text: string) => (text[5] === 'A' ? `${text.slice(0, 5)}B${text.slice(6)}` : `${text.slice(0, 5)}A${text.slice(6)}`);
    // An expired token, signed with the proxy's own secret by the same code, minted 31 minutes ago.
    const old = await new Sessions({ secrets: [SESSION_SECRET], audience: HARNESS_AUDIENCE, tokenSeconds: 30 * 60, difficulty: 0.01, perSessionLimit: false, sessionsPerAddress: false }, new MemoryRateLimitStore()).grant(SITE, Date.now() - 31 * 60_000);
    const cases: [string, string | undefined, string, number, string?][] = [
      ['missing', undefined, SESSION_ERROR_CODES.required, 401],
      ['tampered payload', `${version}.${flipped(payload)}.${signature}`, SESSION_ERROR_CODES.invalid, 401],
      ['tampered signature', `${version}.${payload}.${flipped(signature)}`, SESSION_ERROR_CODES.invalid, 401],
      ['garbage', 'not-a-token', SESSION_ERROR_CODES.invalid, 401],
      ['the same signature bytes, other spare bits', `${version}.${payload}.${signature.slice(0, -1)}${spareBitsTwin(signature.at(-1)!)}`, SESSION_ERROR_CODES.invalid, 401],
      ['expired', old.token, SESSION_ERROR_CODES.expired, 401],
      ['minted for another origin', grant.token, SESSION_ERROR_CODES.wrongOrigin, 403, OTHER_SITE],
    ];
    for (const [kind, token, code, status, origin] of cases) {
      const answer = await ask(h, token, origin ? { origin } : {});
      assert.equal(answer.status, status, kind);
      assert.equal(answer.code, code, kind);
    }
    assert.equal(h.upstream.requests.length, before, 'no refused query reached the service');
  });

  test('a solution is accepted once: the same one again is refused as replayed', async () => {
    const { challenge, solutions } = await earnSession(h.url);
    const again = await mint(h.url, { challenges: challenge.challenges, solutions });
    assert.equal(again.response.status, 409);
    assert.equal(again.body.error?.code, SESSION_ERROR_CODES.challengeReplayed);
  });

  test('an altered challenge and one for another origin are refused before it is spent; a made-up solution spends it (one costly check per challenge)', async () => {
    const { challenges } = await getChallenge(h.url);
    const solutions = (await solveSessionChallenges(challenges))!;
    const easier = challenges.map((challenge) => ({ ...challenge, parameters: { ...challenge.parameters, cost: 1 } }));
    const altered = await mint(h.url, { challenges: easier, solutions });
    assert.equal(altered.body.error?.code, SESSION_ERROR_CODES.challengeInvalid, JSON.stringify(altered.body));
    assert.equal(altered.body.error?.code, SESSION_ERROR_CODES.challengeInvalid);
    const elsewhere = await mint(h.url, { challenges, solutions }, OTHER_SITE);
    assert.equal(elsewhere.body.error?.code, SESSION_ERROR_CODES.challengeInvalid);
    // A key below the target with a counter that does not give it spends the challenge.
    const last = solutions.length - 1;
    const madeUp = await mint(h.url, { challenges, solutions: solutions.map((solution, place) => (place === last ? { counter: solution.counter + 1, derivedKey: '00'.repeat(16) } : solution)) });
    assert.equal(madeUp.body.error?.code, SESSION_ERROR_CODES.challengeInvalid);
    assert.match((madeUp.body.error as { message?: string }).message ?? '', new RegExp(`does not solve the challenge \\(part ${last + 1} of ${last + 1}\\)`));
    assert.equal((await mint(h.url, { challenges, solutions })).body.error?.code, SESSION_ERROR_CODES.challengeReplayed);
  });

  test("a challenge's parts are bound together: spliced from another, missing, reordered, repeated or added, each is refused unspent, and the whole then starts its session once", async () => {
    const [mine, other] = [await getChallenge(h.url), await getChallenge(h.url)];
    const { challenges } = mine;
    assert.equal(challenges.length, CHALLENGE_PARTS);
    const solutions = (await solveSessionChallenges(challenges))!;
    const theirs = (await solveSessionChallenges(other.challenges))!;
    const swap = <T>(list: T[]) => [list[1]!, list[0]!, ...list.slice(2)];
    const cases: [string, unknown][] = [
      ['a part spliced from another answer, solved', { challenges: [...challenges.slice(0, -1), other.challenges.at(-1)], solutions: [...solutions.slice(0, -1), theirs.at(-1)] }],
      ['a part missing', { challenges: challenges.slice(0, -1), solutions: solutions.slice(0, -1) }],
      ['a solution missing', { challenges, solutions: solutions.slice(0, -1) }],
      ['two parts swapped, with their solutions', { challenges: swap(challenges), solutions: swap(solutions) }],
      ['a part repeated in place of another, with its solution', { challenges: [challenges[0], ...challenges.slice(0, -1)], solutions: [solutions[0], ...solutions.slice(0, -1)] }],
      ['a part added from another answer', { challenges: [...challenges, other.challenges[0]], solutions: [...solutions, theirs[0]] }],
    ];
    for (const [kind, body] of cases) {
      const refused = await mint(h.url, body);
      assert.equal(refused.response.status, 400, kind);
      assert.equal(refused.body.error?.code, SESSION_ERROR_CODES.challengeInvalid, kind);
    }
    // None of them spent it: the whole, as issued, starts its session once, and the other answer is untouched.
    assert.equal((await mint(h.url, { challenges, solutions })).response.status, 201);
    assert.equal((await mint(h.url, { challenges, solutions })).body.error?.code, SESSION_ERROR_CODES.challengeReplayed);
    // A part solved twice (its solution sent for the next part too) passes the cheap checks, spends it, and fails the work's.
    const twice = await mint(h.url, { challenges: other.challenges, solutions: [theirs[0], ...theirs.slice(0, -1)] });
    assert.match((twice.body.error as { message?: string }).message ?? '', new RegExp(`does not solve the challenge \\(part 2 of ${CHALLENGE_PARTS}\\)`));
  });

  test('the check derives the parts in order and stops at the first wrong one: made-up solutions cost the proxy one derivation', async () => {
    const { challenges } = await getChallenge(h.url);
    const solutions = (await solveSessionChallenges(challenges))!;
    const madeUp = solutions.map((solution, at) => (at >= 1 ? { counter: solution.counter + 1, derivedKey: '00'.repeat(16) } : solution));
    const refused = await mint(h.url, { challenges, solutions: madeUp });
    assert.match((refused.body.error as { message?: string }).message ?? '', new RegExp(`does not solve the challenge \\(part 2 of ${challenges.length}\\)`));
    // Counted where the check runs: a proxy's Sessions with a derivation that counts its calls.
    const sessions = new Sessions(settings(80), new MemoryRateLimitStore());
    const own = await sessions.challenge(SITE);
    const made = own.challenges.map(() => ({ counter: 0, derivedKey: '00'.repeat(16) }));
    const notBelow = own.challenges.map(() => ({ counter: 0, derivedKey: 'ff'.repeat(16) }));
    const { subtle } = crypto;
    let derivations = 0;
    const deriveBits = subtle.deriveBits.bind(subtle);
    subtle.deriveBits = (...args: Parameters<typeof deriveBits>) => (derivations++, deriveBits(...args));
    try {
      // A key that is not below the target is refused unread, and leaves the challenge unspent.
      assert.equal(isRefusal(await sessions.checkSolution({ challenges: own.challenges, solutions: notBelow }, SITE)), true);
      assert.equal(derivations, 0);
      assert.equal(isRefusal(await sessions.checkSolution({ challenges: own.challenges, solutions: made }, SITE)), true);
      assert.equal(isRefusal(await sessions.checkSolution({ challenges: own.challenges, solutions: made }, SITE)), true);
    } finally {
      subtle.deriveBits = deriveBits;
    }
    assert.equal(derivations, 1, 'one derivation for the first request, none for the replay');
  });

  test("a session's questions are counted whatever visitorId says, and the next waits for the window", async () => {
    const { grant } = await earnSession(h.url);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await ask(h, grant.token, { body: { query: 'hi', visitorId: `visitor-${i}` } })).status);
    assert.deepEqual(statuses, [200, 200, 200]);
    const over = await ask(h, grant.token, { body: { query: 'hi', visitorId: 'yet-another' } });
    assert.equal(over.status, 429);
    assert.equal(over.code, SESSION_ERROR_CODES.limited);
    assert.ok(Number(over.headers.get('retry-after')) >= 1);
  });

  test('a session holds one answer at a time; the next goes once the first has ended', async () => {
    const { grant, held, first } = await holdAnAnswer(h);
    const busy = await ask(h, grant.token);
    assert.equal(busy.code, SESSION_ERROR_CODES.busy);
    held.release();
    await first.text();
    h.upstream.behave(answer());
    // The hold was let go as the end line went out, before the visitor read it.
    const next = await ask(h, grant.token);
    assert.equal(next.status, 200, next.code);
  });

  test("a session's next question goes as soon as the answer's end line has come, though the service has not closed its connection yet", async () => {
    const { grant } = await earnSession(h.url);
    const open = answerLeftOpen();
    h.upstream.behave(open.behaviour);
    const first = await fetch(h.url + PATH, { method: 'POST', headers: withSession(grant.token), body: JSON.stringify({ query: 'hi', streaming: true }) });
    const reader = first.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('data: [DONE]')) {
      const { value, done } = await reader.read();
      assert.ok(!done, `the stream ended before [DONE]: ${text}`);
      text += decoder.decode(value, { stream: true });
    }
    try {
      h.upstream.behave(answer());
      const next = await ask(h, grant.token);
      assert.equal(next.status, 200, `refused as ${next.code} while the service still held the first answer's connection`);
    } finally {
      open.close();
      await reader.cancel();
    }
  });

  test('an address starts at most sessionsPerAddress sessions in its window', async () => {
    const limited = await startProxyHarness({ sessionSecret: SESSION_SECRET, sessionDifficulty: Number(TEST_DIFFICULTY), sessionsPerAddress: { max: 2, windowSeconds: 3600 } });
    try {
      await earnSession(limited.url);
      await earnSession(limited.url);
      const { challenges } = await getChallenge(limited.url);
      const third = await mint(limited.url, { challenges, solutions: await solveSessionChallenges(challenges) });
      assert.equal(third.response.status, 429);
      assert.equal(third.body.error?.code, SESSION_ERROR_CODES.mintLimited);
      assert.ok(Number(third.response.headers.get('retry-after')) > 60);
    } finally {
      await limited.close();
    }
  });
});

describe('visitor sessions: secret rotation', () => {
  test('a token and a challenge of the previous secret stay accepted while it is set as previous, and not after', async () => {
    const old = await startProxyHarness({ sessionSecret: OTHER_SECRET, sessionDifficulty: Number(TEST_DIFFICULTY) });
    const { grant } = await earnSession(old.url);
    const pending = await getChallenge(old.url);
    await old.close();
    const rotated = await startProxyHarness({ sessionSecret: SESSION_SECRET, previousSessionSecret: OTHER_SECRET, sessionDifficulty: Number(TEST_DIFFICULTY) });
    try {
      assert.equal((await ask(rotated, grant.token)).status, 200, "the old secret's token");
      const solved = await mint(rotated.url, { challenges: pending.challenges, solutions: await solveSessionChallenges(pending.challenges) });
      assert.equal(solved.response.status, 201, "the old secret's challenge");
      assert.equal((await ask(rotated, solved.body.token)).status, 200, 'the token it gave, signed with the new secret');
    } finally {
      await rotated.close();
    }
    const retired = await startProxyHarness({ sessionSecret: SESSION_SECRET, sessionDifficulty: Number(TEST_DIFFICULTY) });
    try {
      assert.equal((await ask(retired, grant.token)).code, SESSION_ERROR_CODES.invalid);
    } finally {
      await retired.close();
    }
  });
});

describe('visitor sessions: the core', () => {
  test('a token accepted once is still refused once it expires, and from another origin: its signature is remembered, not its verdict', async () => {
    const sessions = new Sessions({ secrets: [SESSION_SECRET], audience: HARNESS_AUDIENCE, tokenSeconds: 60, difficulty: 0.01, perSessionLimit: false, sessionsPerAddress: false }, new MemoryRateLimitStore());
    const now = Date.now();
    const { token } = await sessions.grant(SITE, now);
    assert.equal((await sessions.checkToken(token, SITE, now)).ok, true);
    assert.equal((await sessions.checkToken(token, SITE, now + 1000)).ok, true);
    const later = await sessions.checkToken(token, SITE, now + 61_000);
    assert.equal(later.ok === false && later.code, SESSION_ERROR_CODES.expired);
    const elsewhere = await sessions.checkToken(token, OTHER_SITE, now + 1000);
    assert.equal(elsewhere.ok === false && elsewhere.code, SESSION_ERROR_CODES.wrongOrigin);
    // A tampered copy is checked on its own, not taken for the token it was copied from.
    const [v, payload, signature] = token.split('.') as [string, string, string];
    const tampered = await sessions.checkToken(`${v}.${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'AB' : 'AA'}`, SITE, now + 1000);
    assert.equal(tampered.ok === false && tampered.code, SESSION_ERROR_CODES.invalid);
  });

  test('0 of 10,000 queries without a valid token reach the service, each refusal kind tried', async () => {
    let reached = 0;
    const call: UpstreamCall = async () => {
      reached++;
      throw new Error('must not be called');
    };
    const core = createProxyCore({ apiKey: TEST_KEY, upstreamUrl: 'http://127.0.0.1:9', agentIds: [AGENT], allowedOrigins: [SITE, OTHER_SITE], sessionSecret: SESSION_SECRET, perAddressLimit: false, perVisitorLimit: false, log: false }, call);
    const sessions = new Sessions({ secrets: [SESSION_SECRET], audience: HARNESS_AUDIENCE, tokenSeconds: 1800, difficulty: 0.01, perSessionLimit: false, sessionsPerAddress: false }, new MemoryRateLimitStore());
    const good = (await sessions.grant(SITE)).token;
    const expired = (await sessions.grant(SITE, Date.now() - 3_600_000)).token;
    const foreign = (await new Sessions({ secrets: [OTHER_SECRET], audience: HARNESS_AUDIENCE, tokenSeconds: 1800, difficulty: 0.01, perSessionLimit: false, sessionsPerAddress: false }, new MemoryRateLimitStore()).grant(SITE)).token;
    const [v, payload, signature] = good.split('.') as [string, string, string];
    const kinds: [string, (i: number) => { token: string | null; origin: string }][] = [
      ['missing', () => ({ token: null, origin: SITE })],
      ['empty', () => ({ token: '', origin: SITE })],
      ['tampered payload', (i) => ({ token: `${v}.${payload.slice(0, -2)}${String.fromCharCode(65 + (i % 26))}${payload.slice(-1)}.${signature}`, origin: SITE })],
      ['tampered signature', (i) => ({ token: `${v}.${payload}.${signature.slice(0, 10)}${String.fromCharCode(97 + (i % 26))}${signature.slice(11)}`, origin: SITE })],
      ['signed by another secret', () => ({ token: foreign, origin: SITE })],
      ['expired', () => ({ token: expired, origin: SITE })],
      ['minted for another origin', () => ({ token: good, origin: OTHER_SITE })],
      ['random bytes', (i) => ({ token: `v1.${btoa(String(i * 7919))}.${btoa(String(i))}`, origin: SITE })],
    ];
    const body = new TextEncoder().encode(JSON.stringify({ query: 'hi' }));
    const refusedBy = new Map<string, number>();
    for (let i = 0; i < 10_000; i++) {
      const [kind, make] = kinds[i % kinds.length]!;
      const { token, origin } = make(i);
      // A tampered token that happens to equal the good one is no tampering: skip it.
      if (token === good && origin === SITE) continue;
      const headers: Record<string, string | null> = { origin, 'content-type': 'application/json', [SESSION_HEADER.toLowerCase()]: token };
      const visitor: VisitorRequest = { method: 'POST', pathname: PATH, header: (name) => headers[name] ?? null, clientAddress: '203.0.113.9', readBody: async () => ({ bytes: body, complete: true }), onLeave: () => () => {} };
      const answer = await core.answer(visitor);
      assert.ok(answer.status === 401 || answer.status === 403, `${kind}: ${answer.status}`);
      refusedBy.set(kind, (refusedBy.get(kind) ?? 0) + 1);
    }
    assert.equal(reached, 0);
    assert.equal(refusedBy.size, kinds.length, 'every kind was tried');
  });

  test("the work rises with the sessions started in a minute, not with challenges asked for (free to ask: a bot could raise every visitor's work)", async () => {
    const sessions = new Sessions(settings(80), new MemoryRateLimitStore());
    for (let i = 0; i < 300; i++) await sessions.challenge(SITE);
    assert.ok(Math.abs((await work(sessions)) - 80) < 0.5, 'after 300 challenges');
    // 61 sessions from 61 networks: 61 / 30 times the work.
    for (let i = 0; i < 61; i++) assert.equal(await sessions.countMint(`198.51.${i}.7`), undefined);
    assert.ok(Math.abs((await work(sessions)) - (80 * 61) / 30) < 0.5, `after 61 sessions: ${await work(sessions)}`);
  });

  test('one address block raises the others\' work at most 1.5 times: an IPv4 /24 or an IPv6 /48, however many sessions it starts', async () => {
    for (const [block, address] of [['an IPv4 /24', (i: number) => `203.0.113.${i % 250}`], ['an IPv6 /48', (i: number) => `2001:db8:7:${(i * 977).toString(16)}::/64`]] as const) {
      for (const already of [0, 20, 30, 90]) {
        const sessions = new Sessions(settings(80), new MemoryRateLimitStore());
        for (let i = 0; i < already; i++) await sessions.countMint(`198.51.${i}.7`);
        const before = await work(sessions);
        for (let i = 0; i < 1000; i++) await sessions.countMint(address(i));
        const after = await work(sessions);
        assert.ok(after <= 1.5 * before * (1 + 1e-6) && after >= before, `${block}, ${already} others: ${before} -> ${after}`);
      }
    }
    assert.equal(BLOCK_LOAD_SHARE_PER_MINUTE, 15);
  });

  test('the work is in proportion to the sessions started a minute above 30, from 1 to 8 times', () => {
    assert.deepEqual([0, 30, 45, 60, 120, 240, 100_000].map(loadFactor), [1, 1, 1.5, 2, 4, 8, 8]);
  });

  test('a challenge asks about `difficulty` million iterations on average in all its parts, spread narrower than one part would be, with no floor a solver could skip', async () => {
    // Solved natively here for speed: each key tried is a fresh draw below the target or not.
    const { pbkdf2Sync } = await import('node:crypto');
    const deriveKey = async (password: Uint8Array, salt: Uint8Array, iterations: number, length: number) => pbkdf2Sync(password, salt, iterations, length, 'sha256');
    // The count of keys tried is the same whatever a key costs (one iteration is as fresh a draw as 2,000): the first
    // challenges are solved at their cost and checked by the proxy, the rest at one iteration for the statistics.
    const oneIteration = async (password: Uint8Array, salt: Uint8Array, _iterations: number, length: number) => pbkdf2Sync(password, salt, 1, length, 'sha256');
    const CHECKED = 4;
    const attempts = 80;
    const sums: number[] = [];
    const counters: number[] = [];
    for (let i = 0; i < 120; i++) {
      // A proxy of its own each time, so the load factor stays 1.
      const sessions = new Sessions(settings(attempts), new MemoryRateLimitStore());
      const { challenges } = await sessions.challenge(SITE);
      assert.equal(challenges.length, CHALLENGE_PARTS);
      assert.ok(challenges.every((challenge) => challenge.parameters.cost === CHALLENGE_COST));
      const solutions = (await solveSessionChallenges(challenges, { deriveKey: i < CHECKED ? deriveKey : oneIteration }))!;
      // The proxy accepts what the solver found.
      if (i < CHECKED) assert.equal((await sessions.checkSolution({ challenges, solutions }, SITE)).ok, true);
      counters.push(...solutions.map((solution) => solution.counter));
      sums.push(total(solutions));
    }
    const mean = sums.reduce((sum, keys) => sum + keys, 0) / sums.length;
    const spread = Math.sqrt(sums.reduce((sum, keys) => sum + (keys - mean) ** 2, 0) / (sums.length - 1));
    // 120 sums of 16 parts of 5 keys on average: each sum's standard deviation is about 17.9, the mean's 1.6, so 80 ± 6.5 fails only on a wrong target.
    assert.ok(Math.abs(mean - attempts) <= 6.5, `mean work ${mean}`);
    // One part of 80 keys on average would spread by about 79.5.
    assert.ok(spread > 12 && spread < 26, `spread of the work ${spread}`);
    // No floor: of 1,920 parts, many are solved by the first key tried.
    assert.ok(counters.includes(0), `lowest counter ${Math.min(...counters)}`);
  });
});

/** The keys a challenge's solutions took: each part's counter, plus the one that solved it. */
function total(solutions: readonly { counter: number }[]): number {
  return solutions.reduce((sum, solution) => sum + solution.counter + 1, 0);
}

describe('visitor sessions: what a token is bound to', () => {
  test('a token works from any address and on every agent of its proxy, one count for them all; not on a proxy of other agents that shares the secret', async () => {
    const h = await startProxyHarness({ sessionSecret: SESSION_SECRET, sessionDifficulty: Number(TEST_DIFFICULTY), perSessionLimit: { max: 3, windowSeconds: 60 }, trustedProxyHops: 1, perAddressLimit: false, perVisitorLimit: false, sessionsPerAddress: false });
    const other = await startProxyHarness({ sessionSecret: SESSION_SECRET, sessionDifficulty: Number(TEST_DIFFICULTY), agentIds: ['agent_3'] });
    try {
      const { grant } = await earnSession(h.url);
      const from = async (path: string, address: string) => (await h.send(path, { headers: { ...withSession(grant.token), 'x-forwarded-for': address }, json: { query: 'hi' } })).response;
      // A phone that moves from Wi-Fi to its carrier, and the page's second chat on another agent.
      const answers = [await from(PATH, '198.51.100.7'), await from('/agents/agent_2/query', '198.51.100.7'), await from(PATH, '2001:db8:1::5')];
      assert.deepEqual(answers.map((a) => a.status), [200, 200, 200]);
      assert.deepEqual(answers.map((a) => a.headers.get(QUESTIONS_LEFT_HEADER)), ['2', '1', '0']);
      assert.equal((await from('/agents/agent_2/query', '203.0.113.50')).status, 429, 'the fourth, wherever it comes from');
      const elsewhere = await other.send('/agents/agent_3/query', { headers: withSession(grant.token), json: { query: 'hi' } });
      assert.equal(elsewhere.response.status, 401);
      assert.match(elsewhere.text, new RegExp(SESSION_ERROR_CODES.invalid));
      const { challenges } = await getChallenge(h.url);
      const solved = await mint(other.url, { challenges, solutions: await solveSessionChallenges(challenges) });
      assert.equal(solved.body.error?.code, SESSION_ERROR_CODES.challengeInvalid, "another proxy's challenge");
    } finally {
      await h.close();
      await other.close();
    }
  });
});

describe('visitor sessions: secrets that cannot be guessed', () => {
  const base = { apiKey: TEST_KEY, upstreamUrl: 'https://api.example.com', agentIds: [AGENT], log: false as const };

  test('a dictionary word, a phrase, a repeat or a run is refused at start, with how to make a secret; random ones pass', async () => {
    const { proxyOptionsFromEnv, createProxy } = await import('../../src/proxy/index.js');
    const { randomBytes } = await import('node:crypto');
    for (const weak of ['changemechangemechangemechangeme', 'correct horse battery staple is my secret', 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH', 'session+secret/0123456789abcdefghijklmnop', 'Password1Password1Password1Password1', 'CorrectHorseBatteryStapleIsMySecretPhrase']) {
      const refused = (error: Error) => /sessionSecret \(KAGENT_SESSION_SECRET\) is too easy to guess.*openssl rand -base64 32/.test(error.message) && !error.message.includes(weak);
      assert.throws(() => createProxyCore({ ...base, sessionSecret: weak }), refused, weak);
      assert.throws(() => createProxy(proxyOptionsFromEnv({ KAGENT_API_KEY: TEST_KEY, KAGENT_UPSTREAM_URL: 'https://api.example.com', KAGENT_AGENT_IDS: AGENT, KAGENT_SESSION_SECRET: SESSION_SECRET, KAGENT_SESSION_SECRET_PREVIOUS: weak })), (error: Error) => /previousSessionSecret \(KAGENT_SESSION_SECRET_PREVIOUS\) is too easy to guess/.test(error.message), weak);
    }
    for (let i = 0; i < 200; i++) for (const secret of [randomBytes(32).toString('base64'), randomBytes(32).toString('hex'), randomBytes(32).toString('base64url')]) assert.doesNotThrow(() => createProxyCore({ ...base, sessionSecret: secret }), secret);
    // Random base64 with no digit (about one in 1,500 draws; this one was refused as words): letters in no word's case runs.
    for (const secret of ['X-npaaYWqOaSpEgwBQGaVMfBGSXLzWdCdNV_BSaPX-E', 'HOmrksRixKTCQBpcicxXeGXTiqTtZWZ_dKlIQAgGEFA']) assert.doesNotThrow(() => createProxyCore({ ...base, sessionSecret: secret }), secret);
  });

  test('no value in a challenge or a token is fixed by the secret: each is the same whatever the secret, or new with every one (so no guess can be checked against a value common to all, as the key id was)', async () => {
    const now = Date.now();
    const make = async (secret: string) => {
      const sessions = new Sessions({ ...{ audience: HARNESS_AUDIENCE, tokenSeconds: 1800, difficulty: 0.01, perSessionLimit: false as const, sessionsPerAddress: false as const }, secrets: [secret] }, new MemoryRateLimitStore());
      const token = (await sessions.grant(SITE, now)).token;
      const [, payload, signature] = token.split('.') as [string, string, string];
      return { challenge: await sessions.challenge(SITE, now), claims: JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>, signature };
    };
    /** Every value in `value`, by where it sits. */
    const leaves = (value: unknown, at = ''): [string, unknown][] => (value !== null && typeof value === 'object' ? Object.entries(value).flatMap(([key, inner]) => leaves(inner, `${at}.${key}`)) : [[at, value]]);
    const [one, two, another] = [await make(SESSION_SECRET), await make(SESSION_SECRET), await make(OTHER_SECRET)];
    const [first, second, third] = [one, two, another].map((made) => new Map(leaves(made))) as [Map<string, unknown>, Map<string, unknown>, Map<string, unknown>];
    for (const [where, value] of first) {
      // Same in two from one secret: then the same from another secret too, so it says nothing of the secret.
      if (second.get(where) === value) assert.equal(third.get(where), value, `${where} is fixed by the secret`);
    }
    // The old key id, the first 48 bits of an HMAC of the secret, is nowhere.
    const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(SESSION_SECRET), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const kid = [...new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode('kagent-chat sessions: key id')))].map((b) => b.toString(16).padStart(2, '0')).join('').slice(0, 12);
    assert.ok(!JSON.stringify(one).includes(kid));
  });
});

describe('visitor sessions: configuration', () => {
  const base = { apiKey: TEST_KEY, upstreamUrl: 'https://api.example.com', agentIds: [AGENT], log: false as const };

  test('the environment turns sessions on, with each setting read as documented', async () => {
    const { proxyOptionsFromEnv } = await import('../../src/proxy/index.js');
    const options = proxyOptionsFromEnv({ KAGENT_API_KEY: TEST_KEY, KAGENT_UPSTREAM_URL: 'https://api.example.com', KAGENT_AGENT_IDS: AGENT, KAGENT_SESSION_SECRET: SESSION_SECRET, KAGENT_SESSION_SECRET_PREVIOUS: OTHER_SECRET, KAGENT_SESSION_MINUTES: '15', KAGENT_RATE_LIMIT_PER_SESSION: '8/10min', KAGENT_SESSIONS_PER_ADDRESS: 'off', KAGENT_SESSION_DIFFICULTY: '1.5', KAGENT_TURNSTILE_SECRET: '1x0000000000000000000000000000000AA', KAGENT_TURNSTILE_SITE_KEY: '1x00000000000000000000AA' });
    assert.deepEqual(
      [options.sessionSecret, options.previousSessionSecret, options.sessionMinutes, options.perSessionLimit, options.sessionsPerAddress, options.sessionDifficulty, options.turnstileSecret, options.turnstileSiteKey],
      [SESSION_SECRET, OTHER_SECRET, 15, { max: 8, windowSeconds: 600 }, false, 1.5, '1x0000000000000000000000000000000AA', '1x00000000000000000000AA'],
    );
    assert.throws(() => proxyOptionsFromEnv({ KAGENT_SESSION_DIFFICULTY: 'hard' }), /KAGENT_SESSION_DIFFICULTY must be a number above 0/);
  });

  test('a short secret, the API key as secret, or Turnstile without sessions or without its site key are refused at start, never echoing a secret', () => {
    const turnstile = { sessionSecret: SESSION_SECRET, turnstileSecret: OTHER_SECRET };
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ sessionSecret: 'short' }, /sessionSecret \(KAGENT_SESSION_SECRET\) must be at least 32 characters: make one with `openssl rand -base64 32`/],
      [{ apiKey: SESSION_SECRET, sessionSecret: SESSION_SECRET }, /must not be the API key/],
      [{ turnstileSecret: '1x0000000000000000000000000000000AA', turnstileSiteKey: '1x00000000000000000000AA' }, /turnstileSecret \(KAGENT_TURNSTILE_SECRET\) needs visitor sessions on/],
      [turnstile, /turnstileSiteKey \(KAGENT_TURNSTILE_SITE_KEY\) is missing: with turnstileSecret set, the page needs/],
      [{ ...turnstile, turnstileSiteKey: OTHER_SECRET }, /turnstileSiteKey \(KAGENT_TURNSTILE_SITE_KEY\) is the secret key/],
      [{ ...turnstile, turnstileSiteKey: '<script>' }, /turnstileSiteKey \(KAGENT_TURNSTILE_SITE_KEY\) must be the widget's site key/],
      [{ sessionSecret: SESSION_SECRET, turnstileSiteKey: '1x00000000000000000000AA' }, /turnstileSiteKey \(KAGENT_TURNSTILE_SITE_KEY\) needs turnstileSecret/],
      [{ previousSessionSecret: OTHER_SECRET }, /needs sessionSecret/],
      [{ sessionSecret: SESSION_SECRET, sessionDifficulty: 0 }, /sessionDifficulty must be a number above 0/],
    ];
    for (const [override, message] of cases) {
      assert.throws(() => createProxyCore({ ...base, ...override } as never), (error: Error) => message.test(error.message) && !error.message.includes(SESSION_SECRET) && !error.message.includes(OTHER_SECRET), JSON.stringify(Object.keys(override)));
    }
  });

  test('sessions need a store that can let go of a hold', () => {
    const store = { hit: async () => ({ count: 1, resetInMs: 1000 }) };
    assert.throws(() => createProxyCore({ ...base, sessionSecret: SESSION_SECRET, rateLimitStore: store }), /release\(\)/);
  });
});

describe('visitor sessions: the Turnstile human check (against a local stand-in of its verification endpoint)', () => {
  const SITE_KEY = '1x00000000000000000000AA';
  let standIn: TurnstileStandIn;
  before(async () => (standIn = await startTurnstileStandIn(new URL(SITE).hostname)));
  after(() => standIn.close());

  async function withTurnstile(secret: string, verifyUrl = standIn.url): Promise<ProxyHarness> {
    return startProxyHarness({ sessionSecret: SESSION_SECRET, sessionDifficulty: Number(TEST_DIFFICULTY), turnstileSecret: secret, turnstileSiteKey: SITE_KEY, turnstileVerifyUrl: verifyUrl, sessionsPerAddress: false });
  }

  async function solvedWith(h: ProxyHarness, turnstileToken?: string) {
    const { challenges, humanCheck, turnstileSiteKey } = await getChallenge(h.url);
    // The page learns what to render the check with from the challenge itself.
    assert.deepEqual([humanCheck, turnstileSiteKey], ['turnstile', SITE_KEY]);
    return mint(h.url, { challenges, solutions: await solveSessionChallenges(challenges), ...(turnstileToken === undefined ? {} : { turnstileToken }) });
  }

  test('a pass from an allowed hostname starts the session; the proxy sends the secret, the token and the address', async () => {
    const h = await withTurnstile(TURNSTILE_PASS);
    try {
      const calls = standIn.calls.length;
      const { response, body } = await solvedWith(h, DUMMY_TOKEN);
      assert.equal(response.status, 201);
      assert.equal((await ask(h, body.token)).status, 200);
      const form = standIn.calls[calls]!;
      assert.deepEqual([form.get('secret'), form.get('response'), form.get('remoteip')], [TURNSTILE_PASS, DUMMY_TOKEN, '127.0.0.1']);
    } finally {
      await h.close();
    }
  });

  test('no token, a failing one, a spent one, or a pass solved on another hostname are refused with HUMAN_CHECK_FAILED', async () => {
    for (const [secret, token, hostname] of [[TURNSTILE_PASS, undefined, SITE], [TURNSTILE_FAIL, DUMMY_TOKEN, SITE], [TURNSTILE_SPENT, DUMMY_TOKEN, SITE], [TURNSTILE_PASS, DUMMY_TOKEN, 'https://elsewhere.example.net']] as const) {
      standIn.hostname = new URL(hostname).hostname;
      const h = await withTurnstile(secret);
      try {
        const { response, body } = await solvedWith(h, token);
        assert.equal(response.status, 403, `${secret} ${token} ${hostname}`);
        assert.equal(body.error?.code, SESSION_ERROR_CODES.humanCheckFailed);
        for (const entry of h.logs) assert.ok(!JSON.stringify(entry).includes(secret), 'the Turnstile secret stays out of the log');
      } finally {
        standIn.hostname = new URL(SITE).hostname;
        await h.close();
      }
    }
  });

  test('when the verification endpoint cannot be reached, the session is refused (fails closed) with HUMAN_CHECK_UNAVAILABLE', async () => {
    const gone = await startTurnstileStandIn('x');
    const url = gone.url;
    await gone.close();
    const h = await withTurnstile(TURNSTILE_PASS, url);
    try {
      const { response, body } = await solvedWith(h, DUMMY_TOKEN);
      assert.equal(response.status, 503);
      assert.equal(body.error?.code, SESSION_ERROR_CODES.humanCheckUnavailable);
    } finally {
      await h.close();
    }
  });
});

describe('visitor sessions: two proxies sharing one Redis', { skip: hasRedisServer() ? false : 'redis-server is not installed here (.ci/run installs it; locally: apt-get install redis-server)' }, () => {
  let redis: TestRedis;
  let a: ProxyHarness;
  let b: ProxyHarness;
  const stores: { close(): Promise<void> }[] = [];
  before(async () => {
    redis = await startRedis();
    const prefix = `sessions-${Date.now()}:`;
    const settings = { sessionSecret: SESSION_SECRET, sessionDifficulty: Number(TEST_DIFFICULTY), perSessionLimit: { max: 3, windowSeconds: 60 }, sessionsPerAddress: { max: 4, windowSeconds: 3600 }, perAddressLimit: false, perVisitorLimit: false } as const;
    const storeA = await connectRedisRateLimitStore(redis.url, { prefix });
    const storeB = await connectRedisRateLimitStore(redis.url, { prefix });
    stores.push(storeA, storeB);
    a = await startProxyHarness({ ...settings, rateLimitStore: storeA });
    b = await startProxyHarness({ ...settings, rateLimitStore: storeB });
  });
  after(async () => {
    await a?.close();
    await b?.close();
    for (const store of stores) await store.close();
    await redis?.stop();
  });

  test("a session's questions are counted across both, whatever visitorId says", async () => {
    const { grant } = await earnSession(a.url);
    const statuses = [];
    for (const [i, h] of [a, b, a, b].entries()) statuses.push((await ask(h, grant.token, { body: { query: 'hi', visitorId: `rotating-${i}` } })).code ?? 'ok');
    assert.deepEqual(statuses, ['ok', 'ok', 'ok', SESSION_ERROR_CODES.limited]);
  });

  test('a solution used on one is refused as replayed on the other', async () => {
    const { challenge, solutions } = await earnSession(a.url);
    const again = await mint(b.url, { challenges: challenge.challenges, solutions });
    assert.equal(again.body.error?.code, SESSION_ERROR_CODES.challengeReplayed);
  });

  test("one answer at a time across both: the other refuses while the first streams", async () => {
    const { grant, held, first } = await holdAnAnswer(a);
    assert.equal((await ask(b, grant.token)).code, SESSION_ERROR_CODES.busy);
    held.release();
    await first.text();
    a.upstream.behave(answer());
  });

  test('sessions started by one address are counted across both', async () => {
    // Three were started above; the hourly allowance is four.
    await earnSession(b.url);
    const { challenges } = await getChallenge(a.url);
    const fifth = await mint(a.url, { challenges, solutions: await solveSessionChallenges(challenges) });
    assert.equal(fifth.body.error?.code, SESSION_ERROR_CODES.mintLimited);
  });
});
