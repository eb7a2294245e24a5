// Solving a visitor session's challenge (contract.ts has the contract): PBKDF2 keys derived until
// one falls below the challenge's target, with WebCrypto's PBKDF2 by default.
import type { SessionChallenge, SessionErrorCode, SessionSolution } from './contract.js';

export interface SolveOptions {
  /** First counter tried. Default 0. Several solvers in parallel start at 0, 1, 2... */
  start?: number;
  /** Step between counters tried. Default 1; the number of parallel solvers when there are several. */
  step?: number;
  /** Stops the search (the promise then resolves with `null`). */
  signal?: AbortSignal;
  /** Derives one key: the default is WebCrypto's PBKDF2, which runs in browsers, Workers, Node, Deno and Bun. */
  deriveKey?: (password: Uint8Array, salt: Uint8Array, iterations: number, keyLength: number) => Promise<Uint8Array>;
}

// Named by their values, not through SESSION_ERROR_CODES, so that this module needs nothing of contract.ts at run time
// (the chat's session keeper, a chunk of its own, then brings none of it); the type keeps them to the codes there.
const NEW_CHALLENGE: ReadonlySet<string> = new Set<SessionErrorCode>(['CHALLENGE_INVALID', 'CHALLENGE_EXPIRED', 'CHALLENGE_REPLAYED']);

/** Whether a session request refused with `code` should start over from a new challenge. */
export function needsNewChallenge(code: string | undefined): boolean {
  return code !== undefined && NEW_CHALLENGE.has(code);
}

/** The largest counter a challenge can hold (4 bytes). */
const MAX_COUNTER = 0xffffffff;

/**
 * Solves a challenge by trying counters from `start` by `step` until the
 * derived key falls below the challenge's target (`solves`). Resolves with `null` when
 * stopped by `signal` or when no counter fits.
 */
export async function solveSessionChallenge(challenge: SessionChallenge, options: SolveOptions = {}): Promise<SessionSolution | null> {
  const { start = 0, step = 1, signal, deriveKey = webCryptoPbkdf2 } = options;
  const { nonce, salt, cost, keyLength, keyBelow } = challenge.parameters;
  const nonceBytes = hexBytes(nonce);
  const saltBytes = hexBytes(salt);
  const password = new Uint8Array(nonceBytes.length + 4);
  password.set(nonceBytes);
  const view = new DataView(password.buffer);
  for (let counter = start; counter <= MAX_COUNTER; counter += step) {
    if (signal?.aborted) return null;
    view.setUint32(nonceBytes.length, counter, false);
    const key = await deriveKey(password, saltBytes, cost, keyLength);
    if (solves(key, keyBelow)) return { counter, derivedKey: bytesHex(key) };
  }
  return null;
}

/** Solves a challenge answer's parts one after another, each as `solveSessionChallenge` does; `null` when stopped or a part has no solution. */
export async function solveSessionChallenges(challenges: readonly SessionChallenge[], options: SolveOptions = {}): Promise<SessionSolution[] | null> {
  const solutions: SessionSolution[] = [];
  for (const challenge of challenges) {
    const solution = await solveSessionChallenge(challenge, options);
    if (!solution) return null;
    solutions.push(solution);
  }
  return solutions;
}

/** One key derivation with WebCrypto's PBKDF2-SHA-256: the solver's default `deriveKey`, for a caller that wraps it (e.g. to yield to the page between keys). */
export async function webCryptoPbkdf2(password: Uint8Array, salt: Uint8Array, iterations: number, keyLength: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey('raw', password as BufferSource, 'PBKDF2', false, ['deriveBits']);
  return new Uint8Array(await crypto.subtle.deriveBits({ name: 'PBKDF2', salt: salt as BufferSource, iterations, hash: 'SHA-256' }, key, keyLength * 8));
}

/** Whether a derived key solves a part whose target is `keyBelow`: its first 4 bytes, big-endian, are below it. */
export function solves(key: Uint8Array, keyBelow: number): boolean {
  return key.length >= 4 && new DataView(key.buffer, key.byteOffset, 4).getUint32(0, false) < keyBelow;
}

function hexBytes(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length >> 1);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

function bytesHex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}
