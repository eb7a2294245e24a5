// A memory store flooded past its capacity, over real HTTP through the proxy: the
// counts that cost money or let sessions be replayed (daily budget, spent
// solutions, mint limits) are never dropped to make room; once the store is full of
// them, new sessions are refused (503) and the log says so once, with the count,
// while sessions under way go on in the room held back for them.
// Per-address query counts are the ones dropped, by design (docs/proxy.md).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SESSION_ERROR_CODES, solveSessionChallenges, type ChallengeAnswer, type SessionSolution } from '../../src/protocol/index.js';
import { AGENT, SITE, startProxyHarness, type ProxyHarness } from '../support/proxy-harness.js';
import { SESSION_SECRET, TEST_DIFFICULTY, withSession } from '../support/proxy-sessions.js';

const PATH = `/agents/${AGENT}/query`;
const CAPACITY = 40;

/** A POST from `address` (the one trusted hop's X-Forwarded-For), with its status and error code. */
async function post(h: ProxyHarness, path: string, address: string, json: unknown, headers: Record<string, string> = { origin: SITE }) {
  const { response, text } = await h.send(path, { json, headers: { ...headers, 'x-forwarded-for': address } });
  const body = JSON.parse(text || '{}') as { token?: string; error?: { code?: string } };
  return { status: response.status, code: body.error?.code, body };
}

/** A challenge asked for and solved from `address`. */
async function solved(h: ProxyHarness, address: string): Promise<{ challenges: ChallengeAnswer['challenges']; solutions: SessionSolution[] }> {
  const asked = await post(h, '/sessions/challenge', address, {});
  assert.equal(asked.status, 200, `a challenge for ${address}`);
  const { challenges } = asked.body as unknown as ChallengeAnswer;
  const solutions = await solveSessionChallenges(challenges);
  assert.ok(solutions);
  return { challenges, solutions };
}

const question = (h: ProxyHarness, token: string, address = '203.0.113.1') => post(h, PATH, address, { query: 'hi' }, withSession(token));

describe(`a memory store of ${CAPACITY} counts flooded past its capacity`, () => {
  test('sessions on: the daily budget, spent solutions and mint limits hold through a flood of addresses; full of counts that must stay, it refuses new sessions and says so once', async () => {
    const h = await startProxyHarness({
      memoryStoreMaxKeys: CAPACITY,
      trustedProxyHops: 1,
      sessionSecret: SESSION_SECRET,
      sessionDifficulty: Number(TEST_DIFFICULTY),
      dailyBudget: 3,
      sessionsPerAddress: { max: 2, windowSeconds: 3600 },
      perSessionLimit: { max: 10, windowSeconds: 60 },
      perVisitorLimit: false,
    });
    try {
      // One address spends the day's budget and its two sessions of the hour; its first solution is kept to replay.
      const first = await solved(h, '203.0.113.1');
      const granted = await post(h, '/sessions', '203.0.113.1', first);
      assert.equal(granted.status, 201);
      const token = granted.body.token!;
      for (let i = 0; i < 3; i++) assert.equal((await question(h, token)).status, 200);
      assert.equal((await question(h, token)).code, SESSION_ERROR_CODES.budgetSpent);
      assert.equal((await post(h, '/sessions', '203.0.113.1', await solved(h, '203.0.113.1'))).status, 201);
      assert.equal((await post(h, '/sessions', '203.0.113.1', await solved(h, '203.0.113.1'))).code, SESSION_ERROR_CODES.mintLimited);

      // A flood of 5 times the capacity in new addresses, each counted (a challenge asked for, a query without a token).
      for (let i = 0; i < CAPACITY * 5; i++) {
        const address = `2001:db8:${Math.floor(i / 256)}:${i % 256}::1`;
        assert.equal((await post(h, '/sessions/challenge', address, {})).status, 200);
        assert.equal((await post(h, PATH, address, { query: 'hi' })).code, SESSION_ERROR_CODES.required);
      }
      assert.equal((await question(h, token)).code, SESSION_ERROR_CODES.budgetSpent, 'the daily budget still holds');
      assert.equal((await post(h, '/sessions', '203.0.113.2', first)).code, SESSION_ERROR_CODES.challengeReplayed, 'the spent solution is still spent');
      assert.equal((await post(h, '/sessions', '203.0.113.1', await solved(h, '203.0.113.1'))).code, SESSION_ERROR_CODES.mintLimited, 'the mint limit still holds');
      assert.ok(h.logs.some((entry) => entry.level === 'warn' && /memory store is full: .*per-address and per-visitor query counts are dropped/.test(entry.message)), 'the dropped address counts are told');

      // Sessions from new addresses, each leaving counts that must stay (its spent solution, its address's mints), until there is no room.
      const statuses: number[] = [];
      for (let i = 0; statuses.at(-1) !== 503 && i < CAPACITY; i++) statuses.push((await post(h, '/sessions', `198.51.100.${i + 1}`, await solved(h, `198.51.100.${i + 1}`))).status);
      assert.equal(statuses.at(-1), 503, `a new session is refused once the store is full: ${statuses.join(' ')}`);
      assert.ok(statuses.slice(0, -1).every((status) => status === 201));
      for (let i = 0; i < 3; i++) assert.equal((await post(h, '/sessions', `192.0.2.${i + 1}`, await solved(h, `192.0.2.${i + 1}`))).status, 503, 'and the next ones too');
      assert.equal((await post(h, '/sessions', '203.0.113.2', first)).code, SESSION_ERROR_CODES.challengeReplayed, 'the spent solution is still spent when full');
      assert.notEqual((await post(h, '/sessions', '203.0.113.1', await solved(h, '203.0.113.1'))).status, 201, 'no session beyond the mint limit when full');
      assert.equal((await question(h, token)).code, SESSION_ERROR_CODES.budgetSpent, 'a session under way still asks, and the budget still holds');
      assert.equal(h.upstream.requests.length, 3, 'the service saw the budget of 3 and no more');

      const full = h.logs.filter((entry) => /memory store is full: \d+ counts held that must be kept/.test(entry.message));
      assert.equal(full.length, 1, 'told once in the minute');
      assert.equal(full[0]!.level, 'error');
      assert.equal(full[0]!.kept, CAPACITY * 0.8, 'new counts that must be kept fill 80%; the rest is held back for what is under way');
    } finally {
      await h.close();
    }
  });

  test('full of counts that must be kept, it refuses new sessions while a session under way goes on asking', async () => {
    const h = await startProxyHarness({ memoryStoreMaxKeys: CAPACITY, trustedProxyHops: 1, sessionSecret: SESSION_SECRET, sessionDifficulty: Number(TEST_DIFFICULTY), perVisitorLimit: false });
    try {
      const granted = await post(h, '/sessions', '203.0.113.1', await solved(h, '203.0.113.1'));
      assert.equal(granted.status, 201);
      let status = 0;
      for (let i = 0; status !== 503 && i < CAPACITY; i++) status = (await post(h, '/sessions', `198.51.100.${i + 1}`, await solved(h, `198.51.100.${i + 1}`))).status;
      assert.equal(status, 503, 'new sessions are refused');
      const asked: number[] = [];
      for (let i = 0; i < 3; i++) asked.push((await question(h, granted.body.token!)).status);
      assert.deepEqual(asked, [200, 200, 200], 'its questions and answers are counted in the room held back for them');
    } finally {
      await h.close();
    }
  });

  test('sessions off: the oldest per-address counts are dropped to make room (an address may ask again), the daily budget never', async () => {
    const h = await startProxyHarness({ memoryStoreMaxKeys: CAPACITY, trustedProxyHops: 1, perAddressLimit: { max: 2, windowSeconds: 60 }, perVisitorLimit: false, dailyBudget: 4 });
    try {
      const ask = (address: string, query = 'hi') => post(h, PATH, address, { query });
      assert.equal((await ask('203.0.113.1')).status, 200);
      assert.equal((await ask('203.0.113.1')).status, 200);
      assert.equal((await ask('203.0.113.1')).status, 429);
      // Counted, then refused before the budget: an empty query.
      for (let i = 0; i < CAPACITY * 5; i++) assert.equal((await ask(`2001:db8:${Math.floor(i / 256)}:${i % 256}::1`, '')).status, 400);
      assert.equal((await ask('203.0.113.1')).status, 200, "the address's count was dropped to make room");
      assert.equal((await ask('203.0.113.9')).status, 200);
      const over = await ask('203.0.113.10');
      assert.equal(over.status, 429);
      assert.equal(over.code, SESSION_ERROR_CODES.budgetSpent, 'the daily budget was kept');
      assert.equal(h.upstream.requests.length, 4);
    } finally {
      await h.close();
    }
  });
});
