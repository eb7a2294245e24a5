import * as v from 'valibot';

// Visitor sessions: the proxy's own contract with the pages it serves, not the
// service's. With sessions on, a page earns a short-lived token by solving a
// proof-of-work challenge the proxy signed, then sends it with every query.
// The work is PBKDF2/SHA-256 keys to derive until one falls below a target (the
// key-derivation puzzle of ALTCHA's proof of work v2, without its deterministic mode).

/** Where a page asks for a challenge and turns its solution into a session, under the proxy's base path. Both are `POST` with a JSON body. */
export const SESSION_ROUTES = { challenge: '/sessions/challenge', session: '/sessions' } as const;

/** The request header that carries the session token on an agent or datastore query. */
export const SESSION_HEADER = 'X-Kagent-Session';

/** The response header that says how many questions the session has left in its window, on every answer to a query with a session. */
export const QUESTIONS_LEFT_HEADER = 'Kagent-Questions-Left';

/**
 * The error codes of the proxy's sessions and budgets (in the usual
 * `{ error: { code, message } }` body). `SESSION_REQUIRED`, `SESSION_INVALID`,
 * `SESSION_EXPIRED` and `SESSION_WRONG_ORIGIN` mean: get a new session, then send the question once more.
 */
export const SESSION_ERROR_CODES = {
  /** 401: the query carries no session token. */
  required: 'SESSION_REQUIRED',
  /** 401: the token is not one the proxy signed (tampered, truncated, or its secret retired). */
  invalid: 'SESSION_INVALID',
  /** 401: the token's time is up. */
  expired: 'SESSION_EXPIRED',
  /** 403: the token was minted for another page's origin. */
  wrongOrigin: 'SESSION_WRONG_ORIGIN',
  /** 429: the session asked all the questions its window allows; `Retry-After` says when the next one may go. */
  limited: 'SESSION_LIMITED',
  /** 429: an answer for this session is still streaming; one at a time. */
  busy: 'SESSION_BUSY',
  /** 429: this address started all the sessions it may this hour; `Retry-After` says when. */
  mintLimited: 'SESSION_MINT_LIMITED',
  /** 400: the challenge was altered, is not the proxy's, or the solution is wrong. Ask for a new challenge. */
  challengeInvalid: 'CHALLENGE_INVALID',
  /** 400: the challenge's time ran out before its solution came. Ask for a new challenge. */
  challengeExpired: 'CHALLENGE_EXPIRED',
  /** 409: this challenge's solution was already used for a session. Ask for a new challenge. */
  challengeReplayed: 'CHALLENGE_REPLAYED',
  /** 403: the human check (Cloudflare Turnstile) refused the token, or it was for another site. */
  humanCheckFailed: 'HUMAN_CHECK_FAILED',
  /** 503: the human check could not be asked; the proxy refuses rather than let the session through unchecked. */
  humanCheckUnavailable: 'HUMAN_CHECK_UNAVAILABLE',
  /** 429: the site's questions for today are spent (sessions on or off); `Retry-After` says how long until midnight UTC. */
  budgetSpent: 'DAILY_BUDGET_SPENT',
} as const;

export type SessionErrorCode = (typeof SESSION_ERROR_CODES)[keyof typeof SESSION_ERROR_CODES];

const RENEWABLE: ReadonlySet<string> = new Set([SESSION_ERROR_CODES.required, SESSION_ERROR_CODES.invalid, SESSION_ERROR_CODES.expired, SESSION_ERROR_CODES.wrongOrigin]);

/** Whether a query refused with `code` should get a new session and be sent once more. */
export function needsNewSession(code: string | undefined): boolean {
  return code !== undefined && RENEWABLE.has(code);
}

const hex = () => v.pipe(v.string('must be a string'), v.regex(/^(?:[0-9a-f]{2})+$/, 'must be lower-case hex'));
const whole = () => v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(0, 'must not be negative'));

/**
 * One part of a challenge as the proxy signs it: proof of work on `PBKDF2/SHA-256`. The solver looks for a
 * `counter` whose key, PBKDF2 of (`nonce` bytes, then `counter` as 4 bytes big-endian) with `salt` bytes, `cost`
 * iterations and `keyLength` bytes, has its first 4 bytes, read as a big-endian number, below `keyBelow`: about
 * 2^32 / `keyBelow` keys to try on average, whichever counters it tries first. The proxy knows no answer in advance
 * (issuing costs it one keyed hash, whatever the work) and derives the key of the counter sent to check it.
 */
export const SessionChallengeRecord = v.object({
  parameters: v.looseObject({
    algorithm: v.literal('PBKDF2/SHA-256', 'must be PBKDF2/SHA-256'),
    nonce: hex(),
    salt: hex(),
    cost: v.pipe(whole(), v.minValue(1, 'must be at least 1')),
    keyLength: v.pipe(whole(), v.minValue(4, 'must be at least 4'), v.maxValue(64, 'must be at most 64')),
    keyBelow: v.pipe(whole(), v.minValue(1, 'must be at least 1'), v.maxValue(2 ** 32, 'must be at most 2^32')),
    /** When the challenge stops being accepted, in seconds since 1970 (the proxy's clock). */
    expiresAt: whole(),
    /** Signed with the rest: the page's origin, the set the part belongs to, its place and how many parts there are. */
    data: v.optional(v.record(v.string(), v.union([v.string(), v.number(), v.boolean(), v.null()]))),
  }),
  /** The proxy's keyed hash of the whole set: the same on every part. */
  signature: hex(),
});
export type SessionChallenge = v.InferOutput<typeof SessionChallengeRecord>;

/** The most parts a challenge may have: the proxy issues fewer, and a session request with more is refused unread. */
export const MAX_CHALLENGE_PARTS = 32;
const parts = <T extends v.GenericSchema>(item: T) => v.pipe(v.array(item, 'must be a list'), v.minLength(1, 'must not be empty'), v.maxLength(MAX_CHALLENGE_PARTS, `must have at most ${MAX_CHALLENGE_PARTS} parts`));

/**
 * The answer to `POST /sessions/challenge` (an empty JSON object as its body). The work comes in parts, bound
 * together by one signature over the set (their `data` names the set, each part's place and how many there are): a page solves each in turn and sends them all back, in order, with their solutions.
 */
export const ChallengeAnswerRecord = v.looseObject({
  challenges: parts(SessionChallengeRecord),
  /** `'turnstile'`: the session request must also carry a Cloudflare Turnstile token (`turnstileToken`), a fresh one for each session. */
  humanCheck: v.nullable(v.literal('turnstile')),
  /** With `humanCheck: 'turnstile'`: the public site key to render Cloudflare's Turnstile widget with (`turnstile.render(container, { sitekey })`). */
  turnstileSiteKey: v.optional(v.pipe(v.string('must be a string'), v.regex(/^[\w-]{1,100}$/, 'must be a Turnstile site key'))),
  /** How long the challenge is accepted, from now. */
  expiresInSeconds: whole(),
});
export type ChallengeAnswer = v.InferOutput<typeof ChallengeAnswerRecord>;

/** What a solver found: the counter and the key it derives, as lower-case hex. */
export const SessionSolutionRecord = v.object({ counter: whole(), derivedKey: hex() });
export type SessionSolution = v.InferOutput<typeof SessionSolutionRecord>;

/** The body of `POST /sessions`: a solved challenge answer. */
export const SessionRequestBody = v.object({
  /** Every part of one challenge answer, as it came and in its order. */
  challenges: parts(SessionChallengeRecord),
  /** The solution of each part, in the same order. */
  solutions: parts(SessionSolutionRecord),
  turnstileToken: v.optional(v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(2048, 'is too long'))),
});
export type SessionRequest = v.InferOutput<typeof SessionRequestBody>;

/** The answer to `POST /sessions` (status 201). */
export const SessionGrantRecord = v.looseObject({
  /** Opaque: sent back as the `X-Kagent-Session` header of each query. */
  token: v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty')),
  /** How long the token is accepted, from now. Renew before it runs out (a new challenge, a new session). */
  expiresInSeconds: whole(),
  /** The session's questions: at most `max` in each window of `windowSeconds`; `null` when not limited per session. */
  questions: v.nullable(v.looseObject({ max: whole(), windowSeconds: whole() })),
});
export type SessionGrant = v.InferOutput<typeof SessionGrantRecord>;
