import type { RateLimitCount, RateLimitStore } from './store.js';

interface Window {
  count: number;
  resetsAt: number;
}

/**
 * Counts in this process's memory: right for one Node, Deno or Bun process.
 * Serverless and edge platforms run many short-lived instances, each with its
 * own memory: use a shared store there (`RedisRateLimitStore`).
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #windows = new Map<string, Window>();
  readonly #maxKeys: number;
  readonly #now: () => number;
  #hitsSinceSweep = 0;

  /** `maxKeys` bounds memory under a flood of distinct addresses; the oldest windows go first. */
  constructor({ maxKeys = 100_000, now = Date.now }: { maxKeys?: number; now?: () => number } = {}) {
    this.#maxKeys = maxKeys;
    this.#now = now;
  }

  async hit(key: string, windowMs: number): Promise<RateLimitCount> {
    const now = this.#now();
    // Swept on use rather than by a timer: edge runtimes forbid timers outside a request.
    if (++this.#hitsSinceSweep >= 1000 || this.#windows.size >= this.#maxKeys) this.#sweep(now);
    let window = this.#windows.get(key);
    if (!window || window.resetsAt <= now) {
      this.#windows.delete(key);
      window = { count: 0, resetsAt: now + windowMs };
      this.#windows.set(key, window);
    }
    window.count++;
    return { count: window.count, resetInMs: window.resetsAt - now };
  }

  async release(key: string): Promise<void> {
    this.#windows.delete(key);
  }

  /** How many keys are held (for tests and monitoring). */
  get size(): number {
    return this.#windows.size;
  }

  async close(): Promise<void> {
    this.#windows.clear();
  }

  #sweep(now: number): void {
    this.#hitsSinceSweep = 0;
    for (const [key, window] of this.#windows) if (window.resetsAt <= now) this.#windows.delete(key);
    // Still full of live windows: drop the oldest inserted (Map keeps insertion order).
    for (const key of this.#windows.keys()) {
      if (this.#windows.size < this.#maxKeys) break;
      this.#windows.delete(key);
    }
  }
}
