import type { RateLimitCount, RateLimitStore } from './store.js';

interface Window {
  count: number;
  resetsAt: number;
}

interface List {
  values: string[];
  expiresAt: number;
}

/**
 * Counts in this process's memory: right for one Node, Deno or Bun process.
 * Serverless and edge platforms run many short-lived instances, each with its
 * own memory: use a shared store there (`RedisRateLimitStore`).
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #windows = new Map<string, Window>();
  readonly #lists = new Map<string, List>();
  readonly #maxKeys: number;
  readonly #maxListValues: number;
  #listValues = 0;
  readonly #now: () => number;
  #hitsSinceSweep = 0;

  /**
   * `maxKeys` bounds memory under a flood of distinct addresses; the oldest windows go first. `maxListValues` bounds
   * the values of all lists together (insights' records, a few hundred bytes each): past it `append` refuses.
   */
  constructor({ maxKeys = 100_000, maxListValues = 200_000, now = Date.now }: { maxKeys?: number; maxListValues?: number; now?: () => number } = {}) {
    this.#maxKeys = maxKeys;
    this.#maxListValues = maxListValues;
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

  async append(key: string, value: string, ttlMs: number): Promise<void> {
    const now = this.#now();
    let list = this.#liveList(key, now);
    if (!list) {
      // Lists are few (one a day for insights): expired ones are dropped when a new one starts.
      for (const [other, held] of this.#lists) if (held.expiresAt <= now) this.#dropList(other, held);
      this.#lists.set(key, (list = { values: [], expiresAt: 0 }));
    }
    if (this.#listValues >= this.#maxListValues) throw new Error(`the memory store holds ${this.#maxListValues} list values already (maxListValues)`);
    list.values.push(value);
    list.expiresAt = now + ttlMs;
    this.#listValues++;
  }

  async list(key: string): Promise<string[]> {
    return [...(this.#liveList(key, this.#now())?.values ?? [])];
  }

  async remove(key: string, values: readonly string[]): Promise<number> {
    const list = this.#liveList(key, this.#now());
    if (!list) return 0;
    const gone = new Set(values);
    const kept = list.values.filter((value) => !gone.has(value));
    const removed = list.values.length - kept.length;
    list.values = kept;
    this.#listValues -= removed;
    if (kept.length === 0) this.#lists.delete(key);
    return removed;
  }

  #liveList(key: string, now: number): List | undefined {
    const list = this.#lists.get(key);
    if (list && list.expiresAt <= now) {
      this.#dropList(key, list);
      return undefined;
    }
    return list;
  }

  #dropList(key: string, list: List): void {
    this.#lists.delete(key);
    this.#listValues -= list.values.length;
  }

  /** How many keys are held (for tests and monitoring). */
  get size(): number {
    return this.#windows.size;
  }

  async close(): Promise<void> {
    this.#windows.clear();
    this.#lists.clear();
    this.#listValues = 0;
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
