// Visitor sessions: a page earns a short-lived token by solving a proof-of-work
// challenge the proxy signed (ALTCHA proof of work v2, PBKDF2/SHA-256, through
// altcha-lib), and sends it with every query. WebCrypto only, so the same code
// runs on Node, workerd, Deno, Bun, Vercel and Netlify.
import { createChallenge, verifySolution } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/web/pbkdf2';
import { SESSION_ERROR_CODES, SessionRequestBody, checkWith, describeProblems, type ChallengeAnswer, type SessionChallenge, type SessionGrant, type SessionRequest } from '../../../protocol/index.js';
import type { RateLimitStore } from '../../stores/store.js';
import { memoized } from '../memo.js';
import type { SessionSettings } from './settings.js';

/** PBKDF2 iterations per counter tried: enough that a browser's per-call overhead is small, little enough that issuing a challenge's part (one derivation) costs the proxy about half a millisecond. */
export const CHALLENGE_COST = 2000;
/**
 * Parts a challenge's work comes in, each with its own counter, solved one after another. One part's work is
 * anywhere from none to twice the average; the sum of k parts keeps the average with a spread k^0.5 times
 * narrower, so fewer visitors draw a long wait. Each part costs the proxy one derivation to issue (why 8: docs/proxy.md).
 */
export const CHALLENGE_PARTS = 8;
/** How long a challenge is accepted. */
export const CHALLENGE_SECONDS = 300;
/**
 * Sessions started a minute, all addresses together, above which each doubling doubles the work, up to
 * `MAX_LOAD_FACTOR`. Started, not challenges issued: a challenge costs nothing to ask for (a bot asking for
 * thousands would raise every visitor's work for free), and every page view asks for one in idle time.
 */
export const LOAD_THRESHOLD_PER_MINUTE = 30;
const MAX_LOAD_FACTOR = 8;

/** A refusal, with the status and the code a page acts on. */
export interface SessionRefusal {
  ok: false;
  status: number;
  code: string;
  message: string;
  retryAfterSeconds?: number;
  /** What failed, when the store could not be asked (logged, never sent). */
  error?: unknown;
}

export function isRefusal(value: unknown): value is SessionRefusal {
  return typeof value === 'object' && value !== null && (value as { ok?: unknown }).ok === false;
}

interface Keys {
  /** Names the secret in tokens and challenges, so a rotation finds the right one at once. */
  kid: string;
  challengeSecret: string;
  challengeKeySecret: string;
  token: CryptoKey;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** What a token claims: its session, page origin, expiry (Unix seconds) and key id. */
type TokenClaims = { s?: unknown; o?: unknown; e?: unknown; k?: unknown };

/**
 * Tokens whose signatures were checked, remembered: a page sends its token with every question, and WebCrypto's
 * HMAC check costs more than the rest of a question's handling (docs/benchmarks.md, Proxy). At most this many
 * (a token is under 200 bytes), then forgotten all at once; expiry and origin are checked on every question.
 */
const CHECKED_TOKENS = 10_000;

/** The sessions of one proxy: its challenges, its tokens and their checks. */
export class Sessions {
  readonly #settings: SessionSettings;
  readonly #store: RateLimitStore;
  #keys: Promise<Keys[]> | undefined;
  /**
   * Sessions started in the store's current minute, all instances together, as the store counted them at this
   * instance's last start, and when that minute ends: a challenge then needs no round trip to the store.
   */
  #started = { count: 0, until: 0 };
  /** A token's claims if this proxy signed it, else `undefined`: worked out once per token, as it cannot change. */
  readonly #signedClaims = memoized((token: string) => this.#checkSignature(token), { maxKeys: CHECKED_TOKENS, maxKeyLength: 1024 });

  constructor(settings: SessionSettings, store: RateLimitStore) {
    this.#settings = settings;
    this.#store = store;
  }

  get settings(): SessionSettings {
    return this.#settings;
  }

  /** A new challenge for a page at `origin` (`''` for a request without one): `CHALLENGE_PARTS` parts bound together. */
  async challenge(origin: string, now = Date.now()): Promise<ChallengeAnswer> {
    const [current] = await this.#allKeys();
    const started = now < this.#started.until ? this.#started.count : 0;
    const attempts = Math.max(2, Math.round((this.#settings.difficulty * 1e6) / CHALLENGE_COST)) * loadFactor(started);
    // Each part's counter uniform in [0, 2·attempts/parts]: `attempts` on average in all, whichever counters a solver
    // tries first. A range with a floor (ALTCHA's examples draw from [min, max]) lets a solver that knows the floor
    // start there and skip that work.
    const most = Math.max(1, Math.round((2 * attempts) / CHALLENGE_PARTS));
    // Signed into every part: which set it belongs to, its place and how many there are, so no part fits another answer.
    const set = base64url(crypto.getRandomValues(new Uint8Array(12)));
    const expiresAt = Math.floor(now / 1000) + CHALLENGE_SECONDS;
    const challenges = await Promise.all(
      Array.from({ length: CHALLENGE_PARTS }, (_, part) =>
        createChallenge({
          algorithm: 'PBKDF2/SHA-256',
          cost: CHALLENGE_COST,
          counter: randomBelow(most + 1),
          deriveKey,
          expiresAt,
          data: { origin, kid: current!.kid, set, part, parts: CHALLENGE_PARTS },
          hmacSignatureSecret: current!.challengeSecret,
          hmacKeySignatureSecret: current!.challengeKeySecret,
        }),
      ),
    );
    return { challenges: challenges as ChallengeAnswer['challenges'], humanCheck: null, expiresInSeconds: CHALLENGE_SECONDS };
  }

  /**
   * Checks a session request's challenge and solutions for a page at
   * `origin`: every part of one set signed by this proxy, in its place, for
   * this origin, unexpired and solved; the check stops at the first part that
   * fails. Whether it was used before is `spend`'s to say.
   */
  async checkSolution(body: unknown, origin: string): Promise<{ ok: true; request: SessionRequest } | SessionRefusal> {
    const parsed = checkWith(SessionRequestBody, body);
    if (!parsed.ok) return refuse(400, SESSION_ERROR_CODES.challengeInvalid, `The session request is not valid: ${describeProblems(parsed.problems)}.`);
    const { challenges, solutions } = parsed.value;
    const claims = challenges.map((challenge) => challenge.parameters.data ?? {});
    const { kid, set, parts } = claims[0]!;
    const keys = (await this.#allKeys()).find((k) => k.kid === kid);
    if (!keys) return refuse(400, SESSION_ERROR_CODES.challengeInvalid, 'This challenge was not issued by this proxy. Ask for a new one.');
    if (claims.some((data) => data.origin !== origin)) return refuse(400, SESSION_ERROR_CODES.challengeInvalid, 'This challenge was issued for another page. Ask for a new one.');
    // Read before any signature is checked, to refuse cheaply; each part's signature then vouches for what it claims.
    const together = typeof set === 'string' && challenges.length === parts && solutions.length === parts && claims.every((data, place) => data.set === set && data.part === place && data.parts === parts && data.kid === kid);
    if (!together) return refuse(400, SESSION_ERROR_CODES.challengeInvalid, "This challenge's parts are not all there, in order, from one challenge. Ask for a new one.");
    for (const [place, challenge] of challenges.entries()) {
      const verified = await verifySolution({ challenge, solution: solutions[place]!, deriveKey, hmacSignatureSecret: keys.challengeSecret, hmacKeySignatureSecret: keys.challengeKeySecret });
      if (verified.expired) return refuse(400, SESSION_ERROR_CODES.challengeExpired, 'This challenge has expired. Ask for a new one.');
      const which = `part ${place + 1} of ${parts}`;
      if (!verified.verified) return refuse(400, SESSION_ERROR_CODES.challengeInvalid, verified.invalidSignature ? `This challenge was altered (${which}). Ask for a new one.` : `This solution does not solve the challenge (${which}).`);
    }
    return { ok: true, request: parsed.value };
  }

  /** Marks a checked challenge as used, remembered until it expires; refuses it if it was used before. */
  async spend(challenges: readonly SessionChallenge[], now = Date.now()): Promise<SessionRefusal | undefined> {
    // The first part's signature names the whole: every part is bound to its set (checkSolution).
    const challenge = challenges[0]!;
    const msLeft = challenge.parameters.expiresAt * 1000 - now;
    const { count } = await this.#store.hit(`challenge-spent:${challenge.signature}`, Math.max(1000, msLeft + 1000));
    if (count > 1) return refuse(409, SESSION_ERROR_CODES.challengeReplayed, 'This challenge was already used for a session. Ask for a new one.');
    return undefined;
  }

  /** Counts a new session against its address's hourly allowance and, once allowed, in the load that raises the work. */
  async countMint(address: string, now = Date.now()): Promise<SessionRefusal | undefined> {
    const limit = this.#settings.sessionsPerAddress;
    if (limit) {
      const { count, resetInMs } = await this.#store.hit(`sessions-minted:${address}`, limit.windowSeconds * 1000);
      if (count > limit.max) {
        const wait = Math.max(1, Math.ceil(resetInMs / 1000));
        return { ...refuse(429, SESSION_ERROR_CODES.mintLimited, `Too many new conversations from your network. Please wait ${minutes(wait)} and try again.`), retryAfterSeconds: wait };
      }
    }
    const { count, resetInMs } = await this.#store.hit('sessions-started', 60_000);
    this.#started = { count, until: now + resetInMs };
    return undefined;
  }

  /** A new token for a page at `origin`. */
  async grant(origin: string, now = Date.now()): Promise<SessionGrant> {
    const [current] = await this.#allKeys();
    const sid = base64url(crypto.getRandomValues(new Uint8Array(16)));
    const payload = base64url(encoder.encode(JSON.stringify({ s: sid, o: origin, e: Math.floor(now / 1000) + this.#settings.tokenSeconds, k: current!.kid })));
    const signature = new Uint8Array(await crypto.subtle.sign('HMAC', current!.token, encoder.encode(`v1.${payload}`)));
    const limit = this.#settings.perSessionLimit;
    return {
      token: `v1.${payload}.${base64url(signature)}`,
      expiresInSeconds: this.#settings.tokenSeconds,
      questions: limit ? { max: limit.max, windowSeconds: limit.windowSeconds } : null,
    };
  }

  /** The session a query's token names, if the token is this proxy's, unexpired and for `origin`. */
  async checkToken(token: string | null, origin: string, now = Date.now()): Promise<{ ok: true; sid: string } | SessionRefusal> {
    if (!token) return refuse(401, SESSION_ERROR_CODES.required, 'This question needs a session. Reload the page to start one.');
    const claims = await this.#signedClaims(token);
    if (!claims || typeof claims.s !== 'string' || typeof claims.o !== 'string' || typeof claims.e !== 'number') return refuse(401, SESSION_ERROR_CODES.invalid, 'This session is not valid. Start a new one.');
    if (claims.e * 1000 <= now) return refuse(401, SESSION_ERROR_CODES.expired, 'This session has expired. Start a new one.');
    if (claims.o !== origin) return refuse(403, SESSION_ERROR_CODES.wrongOrigin, 'This session belongs to another site. Start a new one.');
    return { ok: true, sid: claims.s };
  }

  async #checkSignature(token: string): Promise<TokenClaims | undefined> {
    const parts = token.length <= 1024 ? token.split('.') : [];
    let claims: TokenClaims | undefined;
    let signature: Uint8Array | undefined;
    try {
      if (parts.length === 3 && parts[0] === 'v1') {
        claims = JSON.parse(decoder.decode(fromBase64url(parts[1]!))) as TokenClaims;
        signature = fromBase64url(parts[2]!);
        // Only the encoding the proxy writes: base64 leaves spare bits that decoders ignore.
        if (base64url(signature) !== parts[2]) signature = undefined;
      }
    } catch {
      claims = undefined;
    }
    // The claims are read before the signature is checked only to find the secret that signed them.
    const keys = claims && typeof claims === 'object' ? (await this.#allKeys()).find((k) => k.kid === claims!.k) : undefined;
    const signed = keys !== undefined && signature !== undefined && (await crypto.subtle.verify('HMAC', keys.token, signature as BufferSource, encoder.encode(`v1.${parts[1]}`)).catch(() => false));
    return signed ? claims : undefined;
  }

  /** Counts a question against its session's window; `left` is what remains after it. */
  async countQuestion(sid: string): Promise<{ ok: true; left: number | undefined } | SessionRefusal> {
    const limit = this.#settings.perSessionLimit;
    if (!limit) return { ok: true, left: undefined };
    const { count, resetInMs } = await this.#store.hit(`session:${sid}`, limit.windowSeconds * 1000);
    if (count <= limit.max) return { ok: true, left: limit.max - count };
    const wait = Math.max(1, Math.ceil(resetInMs / 1000));
    return { ...refuse(429, SESSION_ERROR_CODES.limited, `You have asked all the questions this conversation allows for now. Please wait ${minutes(wait)}.`), retryAfterSeconds: wait };
  }

  /**
   * Holds the session's one answer at a time for up to `ms`; gives back what
   * lets go of it, or a refusal while another answer holds it.
   */
  async hold(sid: string, ms: number): Promise<{ ok: true; release: () => void } | SessionRefusal> {
    const key = `session-stream:${sid}`;
    const { count } = await this.#store.hit(key, ms);
    if (count > 1) return { ...refuse(429, SESSION_ERROR_CODES.busy, 'An answer is still on its way. Please wait for it to finish.'), retryAfterSeconds: 2 };
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        // A failed release leaves the hold to expire with its window.
        this.#store.release!(key).catch(() => {});
      },
    };
  }

  #allKeys(): Promise<Keys[]> {
    this.#keys ??= Promise.all(this.#settings.secrets.map(keysFor));
    return this.#keys;
  }
}

function refuse(status: number, code: string, message: string): SessionRefusal {
  return { ok: false, status, code, message };
}

/** The work multiplier for `started` sessions in the last minute. */
export function loadFactor(started: number): number {
  let factor = 1;
  while (factor < MAX_LOAD_FACTOR && started > LOAD_THRESHOLD_PER_MINUTE * factor) factor *= 2;
  return factor;
}

async function keysFor(secret: string): Promise<Keys> {
  const base = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  // Each use gets its own key derived from the secret, so no value signed for one use is valid for another.
  const derive = async (label: string) => new Uint8Array(await crypto.subtle.sign('HMAC', base, encoder.encode(`kagent-chat sessions: ${label}`)));
  const [kid, challengeSecret, challengeKeySecret, token] = await Promise.all([derive('key id'), derive('challenge'), derive('challenge key'), derive('token')]);
  return {
    kid: hex(kid).slice(0, 12),
    challengeSecret: hex(challengeSecret),
    challengeKeySecret: hex(challengeKeySecret),
    token: await crypto.subtle.importKey('raw', token, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']),
  };
}

function randomBelow(n: number): number {
  return crypto.getRandomValues(new Uint32Array(1))[0]! % n;
}

function minutes(seconds: number): string {
  if (seconds < 90) return seconds === 1 ? '1 second' : `${seconds} seconds`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

function hex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64url(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error('not base64url');
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
