// Earning a visitor session from a proxy over HTTP, as a page does: ask for a
// challenge, solve its parts with the protocol's WebCrypto solver, turn it into a token.
import assert from 'node:assert/strict';
import { ChallengeAnswerRecord, SESSION_HEADER, SessionGrantRecord, solveSessionChallenges, type ChallengeAnswer, type SessionGrant, type SessionSolution } from '../../src/protocol/index.js';
import * as v from 'valibot';
import { AGENT, SITE } from './proxy-harness.js';
import { sessionAudience } from '../../src/proxy/core/options.js';

/** Random secrets (openssl rand -base64 32), with characters URI-encoding changes, so both forms can be looked for. */
export const SESSION_SECRET = 'q8+Vh1/zW3kR0tN6yLc2Jm9XpB4sGd7EfUa5HnKoTiM=';
export const OTHER_SECRET = 'Zr4+Lw8/Qe2TmY6cVb0NjX3sKh9GdP5uAf1RnBo7IkE=';
/** What the test harness's proxy serves, as its session keys mix it in: a Sessions made here signs what it accepts. */
export const HARNESS_AUDIENCE = sessionAudience([AGENT, 'agent_2']);
/** Work small enough for tests: a handful of PBKDF2 derivations. */
export const TEST_DIFFICULTY = '0.01';

export interface Earned {
  challenge: ChallengeAnswer;
  solutions: SessionSolution[];
  grant: SessionGrant;
}

async function postJson(url: string, body: unknown, origin: string): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** A new challenge from the proxy at `base` (no trailing slash) for a page at `origin`. */
export async function getChallenge(base: string, origin = SITE): Promise<ChallengeAnswer> {
  const response = await postJson(`${base}/sessions/challenge`, {}, origin);
  const text = await response.text();
  assert.equal(response.status, 200, `a challenge: ${text}`);
  return v.parse(ChallengeAnswerRecord, JSON.parse(text));
}

/** Sends a solved challenge; gives back the raw answer. */
export async function mint(base: string, body: unknown, origin = SITE): Promise<{ response: Response; body: { error?: { code: string }; token?: string } }> {
  const response = await postJson(`${base}/sessions`, body, origin);
  return { response, body: (await response.json()) as { error?: { code: string }; token?: string } };
}

/** Challenge, solution and token, for a page at `origin`. */
export async function earnSession(base: string, origin = SITE, extra: Record<string, unknown> = {}): Promise<Earned> {
  const challenge = await getChallenge(base, origin);
  const solutions = await solveSessionChallenges(challenge.challenges);
  assert.ok(solutions, 'the challenge has a solution');
  const { response, body } = await mint(base, { challenges: challenge.challenges, solutions, ...extra }, origin);
  assert.equal(response.status, 201, `a session: ${JSON.stringify(body)}`);
  return { challenge, solutions, grant: v.parse(SessionGrantRecord, body) };
}

/** Headers of a query with a session token. */
export function withSession(token: string, origin = SITE): Record<string, string> {
  return { origin, 'content-type': 'application/json', [SESSION_HEADER]: token };
}
