// Visitor sessions: a page earns a short-lived token by solving a proof-of-work
// challenge the proxy signed (PBKDF2/SHA-256 keys derived until one falls below a
// target), and sends it with every query. WebCrypto only, so the same code runs on
// Node, workerd, Deno, Bun, Vercel and Netlify.
import { SESSION_ERROR_CODES, SessionRequestBody, checkWith, describeProblems, solves, webCryptoPbkdf2, type ChallengeAnswer, type SessionChallenge, type SessionGrant, type SessionRequest } from '../../../protocol/index.js';
import { addressBlock } from '../client-address.js';
import type { RateLimitStore } from '../../stores/store.js';
import type { SessionSettings } from './settings.js';

/** PBKDF2 iterations per counter tried: enough that a browser's per-call overhead is small, little enough that checking one part (one derivation) costs the proxy under 2 ms. */
export const CHALLENGE_COST = 2000;
/**
 * Parts a challenge's work comes in, each with its own counter, solved one after another. One part's work is
 * anywhere from none to several times its average (each key tried is a fresh draw); the sum of k parts keeps the
 * average with a spread k^0.5 times narrower, so fewer visitors draw a long wait. Checking a solved challenge costs
 * the proxy one derivation a part (why 8: docs/proxy.md).
 */
export const CHALLENGE_PARTS = 16;
/** How long a challenge is accepted. */
export const CHALLENGE_SECONDS = 300;
/**
 * Sessions started a minute, all address blocks together, above which the work rises in proportion, up to
 * `MAX_LOAD_FACTOR` times. Started, not challenges issued: a challenge costs nothing to ask for (a bot asking for
 * thousands would raise every visitor's work for free), and every page view asks for one in idle time.
 */
export const LOAD_THRESHOLD_PER_MINUTE = 30;
/**
 * Sessions one address block (an IPv4 /24, an IPv6 /48) counts toward the load in a minute: half the threshold, so
 * one block, however busy, raises everyone else's work at most 1.5 times (`loadFactor`).
 */
export const BLOCK_LOAD_SHARE_PER_MINUTE = LOAD_THRESHOLD_PER_MINUTE / 2;
const MAX_LOAD_FACTOR = 8;
/** The derived key's length in a challenge: its first 4 bytes are compared with the target, the rest only makes a guess at it pointless. */
const KEY_LENGTH = 16;

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

/**
 * The keys one secret gives, each for one use. No key id: a value derived from the secret alone and sent with every
 * challenge and token let anyone test a guessed secret against it with one hash, the same for every proxy; the
 * proxy tries its current secret, then the previous one during a rotation.
 */
interface Keys {
  challenge: CryptoKey;
  token: CryptoKey;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** A session already started goes on counting when a bounded store is full; only new sessions are refused. */
const UNDER_WAY = { whenFull: 'reserve' } as const;

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

  constructor(settings: SessionSettings, store: RateLimitStore) {
    this.#settings = settings;
    this.#store = store;
  }

  get settings(): SessionSettings {
    return this.#settings;
  }

  /**
   * A new challenge for a page at `origin` (`''` for a request without one): `CHALLENGE_PARTS` parts bound together
   * by one keyed hash over the set. The proxy derives no key to issue it: it checks the counters sent back instead.
   */
  async challenge(origin: string, now = Date.now()): Promise<ChallengeAnswer> {
    const [current] = await this.#allKeys();
    const started = now < this.#started.until ? this.#started.count : 0;
    const attempts = Math.max(1, (this.#settings.difficulty * 1e6) / CHALLENGE_COST) * loadFactor(started);
    // Each key tried solves a part with chance keyBelow / 2^32: attempts / parts keys a part on average, and no
    // counter is better to start from than another.
    const keyBelow = Math.max(1, Math.min(2 ** 32, Math.round(2 ** 32 / Math.max(1, attempts / CHALLENGE_PARTS))));
    const random = crypto.getRandomValues(new Uint8Array(28));
    const set = hex(random.subarray(0, 12));
    const shared = { algorithm: 'PBKDF2/SHA-256' as const, salt: hex(random.subarray(12)), cost: CHALLENGE_COST, keyLength: KEY_LENGTH, keyBelow, expiresAt: Math.floor(now / 1000) + CHALLENGE_SECONDS };
    const signature = hex(new Uint8Array(await crypto.subtle.sign('HMAC', current!.challenge, encoder.encode(signedSet(shared, origin, set, CHALLENGE_PARTS)))));
    const { algorithm, salt, cost, keyLength, expiresAt } = shared;
    const challenges: ChallengeAnswer['challenges'] = [];
    // Each part written out field by field: a spread of `shared` into 16 objects cost more than the keyed hash.
    for (let part = 0; part < CHALLENGE_PARTS; part++) {
      challenges.push({ parameters: { algorithm, salt, cost, keyLength, keyBelow, expiresAt, nonce: nonceOf(set, part), data: { origin, set, part, parts: CHALLENGE_PARTS } }, signature });
    }
    return { challenges, humanCheck: null, expiresInSeconds: CHALLENGE_SECONDS };
  }

  /**
   * Checks a session request's challenge and solutions for a page at `origin`, the cheap checks first: every part
   * of one set, in its place, for this origin, signed by this proxy, unexpired, each solution's key below the
   * target. Only then is the challenge spent (a second request with it is refused as replayed) and each part's key
   * derived, in order, stopping at the first wrong one: a challenge buys at most one costly check, however its
   * solutions were made up.
   */
  async checkSolution(body: unknown, origin: string, now = Date.now()): Promise<{ ok: true; request: SessionRequest } | SessionRefusal> {
    const parsed = checkWith(SessionRequestBody, body);
    if (!parsed.ok) return refuse(400, SESSION_ERROR_CODES.challengeInvalid, `The session request is not valid: ${describeProblems(parsed.problems)}.`);
    const { challenges, solutions } = parsed.value;
    const first = challenges[0]!;
    const { set, parts } = first.parameters.data ?? {};
    if (challenges.some((challenge) => challenge.parameters.data?.origin !== origin)) return refuse(400, SESSION_ERROR_CODES.challengeInvalid, 'This challenge was issued for another page. Ask for a new one.');
    const together =
      typeof set === 'string' &&
      challenges.length === parts &&
      solutions.length === parts &&
      challenges.every(({ parameters: p, signature }, place) => signature === first.signature && p.nonce === nonceOf(set, place) && p.data?.set === set && p.data.part === place && p.data.parts === parts && sameWork(p, first.parameters));
    if (!together) return refuse(400, SESSION_ERROR_CODES.challengeInvalid, "This challenge's parts are not all there, in order, from one challenge. Ask for a new one.");
    const signed = encoder.encode(signedSet(first.parameters, origin, set, parts));
    const signature = fromHex(first.signature);
    let ours = false;
    for (const keys of await this.#allKeys()) if ((ours = await crypto.subtle.verify('HMAC', keys.challenge, signature as BufferSource, signed))) break;
    if (!ours) return refuse(400, SESSION_ERROR_CODES.challengeInvalid, 'This challenge was altered or not issued by this proxy. Ask for a new one.');
    const { expiresAt, keyBelow, keyLength, cost, salt } = first.parameters;
    if (expiresAt * 1000 <= now) return refuse(400, SESSION_ERROR_CODES.challengeExpired, 'This challenge has expired. Ask for a new one.');
    const keys = solutions.map((solution) => fromHex(solution.derivedKey));
    const unsolved = keys.findIndex((key) => key.length !== keyLength || !solves(key, keyBelow));
    if (unsolved >= 0) return notSolved(unsolved, parts);
    const spent = await this.#spend(first.signature, expiresAt, now);
    if (spent) return spent;
    const saltBytes = fromHex(salt);
    for (const [place, { parameters }] of challenges.entries()) {
      const nonce = fromHex(parameters.nonce);
      const password = new Uint8Array(nonce.length + 4);
      password.set(nonce);
      new DataView(password.buffer).setUint32(nonce.length, solutions[place]!.counter, false);
      const key = await webCryptoPbkdf2(password, saltBytes, cost, keyLength);
      if (!sameBytes(key, keys[place]!)) return notSolved(place, parts);
    }
    return { ok: true, request: parsed.value };
  }

  /** Marks a challenge as used, remembered until it expires; refuses it if it was used before. */
  async #spend(signature: string, expiresAt: number, now: number): Promise<SessionRefusal | undefined> {
    const msLeft = expiresAt * 1000 - now;
    const { count } = await this.#store.hit(`challenge-spent:${signature}`, Math.max(1000, msLeft + 1000));
    if (count > 1) return refuse(409, SESSION_ERROR_CODES.challengeReplayed, 'This challenge was already used for a session. Ask for a new one.');
    return undefined;
  }

  /**
   * Counts a new session against its address's hourly allowance and, once allowed, in the load that raises the work:
   * at most `BLOCK_LOAD_SHARE_PER_MINUTE` a minute from one address block.
   */
  async countMint(address: string, now = Date.now()): Promise<SessionRefusal | undefined> {
    const limit = this.#settings.sessionsPerAddress;
    if (limit) {
      const { count, resetInMs } = await this.#store.hit(`sessions-minted:${address}`, limit.windowSeconds * 1000);
      if (count > limit.max) {
        const wait = Math.max(1, Math.ceil(resetInMs / 1000));
        return { ...refuse(429, SESSION_ERROR_CODES.mintLimited, `Too many new conversations from your network. Please wait ${minutes(wait)} and try again.`), retryAfterSeconds: wait };
      }
    }
    const fromBlock = await this.#store.hit(`sessions-started-block:${addressBlock(address)}`, 60_000);
    if (fromBlock.count > BLOCK_LOAD_SHARE_PER_MINUTE) return undefined;
    const { count, resetInMs } = await this.#store.hit('sessions-started', 60_000);
    this.#started = { count, until: now + resetInMs };
    return undefined;
  }

  /** A new token for a page at `origin`. */
  async grant(origin: string, now = Date.now()): Promise<SessionGrant> {
    const [current] = await this.#allKeys();
    const sid = base64url(crypto.getRandomValues(new Uint8Array(16)));
    const payload = base64url(encoder.encode(JSON.stringify({ s: sid, o: origin, e: Math.floor(now / 1000) + this.#settings.tokenSeconds })));
    const signature = new Uint8Array(await crypto.subtle.sign('HMAC', current!.token, encoder.encode(`${TOKEN_VERSION}.${payload}`)));
    const limit = this.#settings.perSessionLimit;
    return {
      token: `${TOKEN_VERSION}.${payload}.${base64url(signature)}`,
      expiresInSeconds: this.#settings.tokenSeconds,
      questions: limit ? { max: limit.max, windowSeconds: limit.windowSeconds } : null,
    };
  }

  /** The session a query's token names, if the token is this proxy's, unexpired and for `origin`. */
  async checkToken(token: string | null, origin: string, now = Date.now()): Promise<{ ok: true; sid: string } | SessionRefusal> {
    if (!token) return refuse(401, SESSION_ERROR_CODES.required, 'This question needs a session. Reload the page to start one.');
    const parts = token.length <= 1024 ? token.split('.') : [];
    let claims: { s?: unknown; o?: unknown; e?: unknown } | undefined;
    let signature: Uint8Array | undefined;
    try {
      if (parts.length === 3 && parts[0] === TOKEN_VERSION) {
        claims = JSON.parse(decoder.decode(fromBase64url(parts[1]!))) as typeof claims;
        signature = fromBase64url(parts[2]!);
        // Only the encoding the proxy writes: base64 leaves spare bits that decoders ignore.
        if (base64url(signature) !== parts[2]) signature = undefined;
      }
    } catch {
      claims = undefined;
    }
    let signed = false;
    if (claims && typeof claims === 'object' && signature) {
      const message = encoder.encode(`${TOKEN_VERSION}.${parts[1]}`);
      // The current secret first: the previous one is tried only during a rotation, and only when the current fails.
      for (const keys of await this.#allKeys()) if ((signed = await crypto.subtle.verify('HMAC', keys.token, signature as BufferSource, message).catch(() => false))) break;
    }
    if (!signed || typeof claims!.s !== 'string' || typeof claims!.o !== 'string' || typeof claims!.e !== 'number') return refuse(401, SESSION_ERROR_CODES.invalid, 'This session is not valid. Start a new one.');
    if (claims!.e * 1000 <= now) return refuse(401, SESSION_ERROR_CODES.expired, 'This session has expired. Start a new one.');
    if (claims!.o !== origin) return refuse(403, SESSION_ERROR_CODES.wrongOrigin, 'This session belongs to another site. Start a new one.');
    return { ok: true, sid: claims!.s };
  }

  /** Counts a question against its session's window; `left` is what remains after it. */
  async countQuestion(sid: string): Promise<{ ok: true; left: number | undefined } | SessionRefusal> {
    const limit = this.#settings.perSessionLimit;
    if (!limit) return { ok: true, left: undefined };
    const { count, resetInMs } = await this.#store.hit(`session:${sid}`, limit.windowSeconds * 1000, UNDER_WAY);
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
    const { count } = await this.#store.hit(key, ms, UNDER_WAY);
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
    this.#keys ??= Promise.all(this.#settings.secrets.map((secret) => keysFor(secret, this.#settings.audience)));
    return this.#keys;
  }
}

function refuse(status: number, code: string, message: string): SessionRefusal {
  return { ok: false, status, code, message };
}

/**
 * The work multiplier for `started` sessions in the last minute: in proportion above the threshold, so the
 * `BLOCK_LOAD_SHARE_PER_MINUTE` sessions one address block adds raise it at most 1.5 times (from 1 below the
 * threshold, from started / threshold above it).
 */
export function loadFactor(started: number): number {
  return Math.min(MAX_LOAD_FACTOR, Math.max(1, started / LOAD_THRESHOLD_PER_MINUTE));
}

async function keysFor(secret: string, audience: string): Promise<Keys> {
  const base = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  // Each use gets its own key derived from the secret and the proxy's audience (its service and agents), so no value
  // signed for one use is valid for another, nor on another proxy that shares the secret.
  const derive = async (label: string) => {
    const bytes = await crypto.subtle.sign('HMAC', base, encoder.encode(`kagent-chat sessions: ${label} for ${audience}`));
    return crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  };
  const [challenge, token] = await Promise.all([derive('challenge'), derive('token')]);
  return { challenge, token };
}

/** The token format's first field: v1 tokens carried a key id. */
const TOKEN_VERSION = 'v2';

type SharedWork = Pick<SessionChallenge['parameters'], 'algorithm' | 'salt' | 'cost' | 'keyLength' | 'keyBelow' | 'expiresAt'>;

/** What a challenge's one signature covers: the work every part shares, the page's origin, the set and its size. */
function signedSet(p: SharedWork, origin: string, set: string, parts: number): string {
  return JSON.stringify(['kagent-chat challenge', origin, set, parts, p.algorithm, p.salt, p.cost, p.keyLength, p.keyBelow, p.expiresAt]);
}

function sameWork(a: SharedWork, b: SharedWork): boolean {
  return a.algorithm === b.algorithm && a.salt === b.salt && a.cost === b.cost && a.keyLength === b.keyLength && a.keyBelow === b.keyBelow && a.expiresAt === b.expiresAt;
}

/** A part's nonce: its set's 12 bytes, then its place. */
function nonceOf(set: string, part: number): string {
  return set + part.toString(16).padStart(2, '0');
}

function notSolved(place: number, parts: number): SessionRefusal {
  return refuse(400, SESSION_ERROR_CODES.challengeInvalid, `This solution does not solve the challenge (part ${place + 1} of ${parts}).`);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

function fromHex(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length >> 1);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return bytes;
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
