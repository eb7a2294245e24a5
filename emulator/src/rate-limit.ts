/**
 * Requests per minute per key, over a sliding minute: a key may make `limit`
 * requests in any 60 seconds. When it is over, `retryAfter` is the whole
 * seconds until its oldest request of that minute leaves the window.
 */
export class RateLimiter {
  readonly #windowMs: number;
  readonly #hits = new Map<string, number[]>();

  constructor(windowMs = 60_000) {
    this.#windowMs = windowMs;
  }

  /** Counts a request; returns `undefined` when allowed, else the seconds to wait. */
  hit(keyId: string, limit: number, now = Date.now()): number | undefined {
    const since = now - this.#windowMs;
    const hits = (this.#hits.get(keyId) ?? []).filter((time) => time > since);
    if (hits.length >= limit) {
      this.#hits.set(keyId, hits);
      const oldest = hits[hits.length - limit]!;
      return Math.max(1, Math.ceil((oldest + this.#windowMs - now) / 1000));
    }
    hits.push(now);
    this.#hits.set(keyId, hits);
    return undefined;
  }

  /** Forgets a key (revoked). */
  forget(keyId: string): void {
    this.#hits.delete(keyId);
  }
}
