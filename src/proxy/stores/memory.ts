import { StoreFullError, type HitOptions, type RateLimitCount, type RateLimitStore, type StoreLog } from './store.js';

interface Window {
  count: number;
  resetsAt: number;
}

/** Counts held by default: up to about 34 MB of heap when full (`npm run bench -- memory-store`; docs/proxy.md, Rate-limit stores). */
export const DEFAULT_MEMORY_STORE_MAX_KEYS = 100_000;
/** How often, at most, a full store says so in the log. */
const REPORT_EVERY_MS = 60_000;
/** How often, at most, a full store looks for ended windows before dropping or refusing: a flood at capacity costs no sweep per hit. */
const FULL_SWEEP_EVERY_MS = 1000;

/**
 * Counts in this process's memory: right for one Node, Deno or Bun process.
 * Serverless and edge platforms run many short-lived instances, each with its
 * own memory: use a shared store there (`RedisRateLimitStore`).
 *
 * It holds at most `maxKeys` counts. When full, a forgettable count (a per-address or
 * per-visitor query limit) makes room by dropping the oldest forgettable one; every
 * other count is kept until its window ends, and a new one that finds no room is
 * refused (`StoreFullError`): the proxy then refuses that request rather than forget.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  /** Kept until their window ends. Maps keep insertion order, so each map's first key is its oldest window. */
  readonly #kept = new Map<string, Window>();
  readonly #forgettable = new Map<string, Window>();
  readonly #maxKeys: number;
  readonly #now: () => number;
  #hitsSinceSweep = 0;
  #lastSweep = -Infinity;
  #log: StoreLog | undefined;
  /** What being full cost since each kind's last report: counts refused, counts dropped or not kept. */
  readonly #pressure = { refused: { count: 0, reportedAt: -Infinity }, forgotten: { count: 0, reportedAt: -Infinity } };

  /** `maxKeys` bounds memory under a flood of distinct addresses (up to about 340 bytes a count). */
  constructor({ maxKeys = DEFAULT_MEMORY_STORE_MAX_KEYS, now = Date.now }: { maxKeys?: number; now?: () => number } = {}) {
    if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new RangeError(`maxKeys must be a whole number above 0 (got ${maxKeys})`);
    this.#maxKeys = maxKeys;
    this.#now = now;
  }

  async hit(key: string, windowMs: number, options?: HitOptions): Promise<RateLimitCount> {
    const now = this.#now();
    const forgettable = options?.forgettable === true;
    const windows = forgettable ? this.#forgettable : this.#kept;
    // Swept on use rather than by a timer: edge runtimes forbid timers outside a request.
    if (++this.#hitsSinceSweep >= 1000) this.#sweep(now);
    let window = windows.get(key);
    if (!window || window.resetsAt <= now) {
      // An ended window starts over at the end of the order; a new key needs room.
      if (window) windows.delete(key);
      else if (!this.#makeRoom(now, forgettable)) {
        // Full of counts that must be kept: a forgettable one goes uncounted, any other is refused.
        if (forgettable) return { count: 1, resetInMs: windowMs };
        throw new StoreFullError(this.size);
      }
      window = { count: 0, resetsAt: now + windowMs };
      windows.set(key, window);
    }
    window.count++;
    return { count: window.count, resetInMs: window.resetsAt - now };
  }

  async release(key: string): Promise<void> {
    if (!this.#kept.delete(key)) this.#forgettable.delete(key);
  }

  watch(log: StoreLog): void {
    this.#log = log;
  }

  /** How many counts are held (for tests and monitoring). */
  get size(): number {
    return this.#kept.size + this.#forgettable.size;
  }

  /** The most counts held. */
  get maxKeys(): number {
    return this.#maxKeys;
  }

  async close(): Promise<void> {
    this.#kept.clear();
    this.#forgettable.clear();
  }

  /** Whether a new key fits, after sweeping ended windows or dropping the oldest forgettable count. */
  #makeRoom(now: number, forgettable: boolean): boolean {
    if (this.size < this.#maxKeys) return true;
    if (now - this.#lastSweep >= FULL_SWEEP_EVERY_MS) {
      this.#sweep(now);
      if (this.size < this.#maxKeys) return true;
    }
    const oldest = this.#forgettable.keys().next();
    const room = !oldest.done;
    if (room) this.#forgettable.delete(oldest.value);
    this.#report(now, room || forgettable ? 'forgotten' : 'refused');
    return room;
  }

  #sweep(now: number): void {
    this.#hitsSinceSweep = 0;
    this.#lastSweep = now;
    for (const windows of [this.#kept, this.#forgettable]) for (const [key, window] of windows) if (window.resetsAt <= now) windows.delete(key);
  }

  /** Counts what being full cost, and tells the log at most once a minute for each kind. */
  #report(now: number, cost: 'refused' | 'forgotten'): void {
    const pressure = this.#pressure[cost];
    pressure.count++;
    if (!this.#log || now - pressure.reportedAt < REPORT_EVERY_MS) return;
    const fields = { held: this.size, maxKeys: this.#maxKeys, [cost]: pressure.count };
    pressure.count = 0;
    pressure.reportedAt = now;
    if (cost === 'refused') {
      this.#log('error', `the memory store is full: ${this.size} counts held, all still counting; new sessions (and any count that must be kept) are refused with 503 until some expire (${fields.refused} refused since the last report). Raise KAGENT_MEMORY_STORE_MAX_KEYS (up to about 340 bytes a count), or use Redis`, fields);
    } else {
      this.#log('warn', `the memory store is full: ${this.size} counts held; the oldest per-address and per-visitor query counts are dropped to make room (${fields.forgotten} since the last report). Raise KAGENT_MEMORY_STORE_MAX_KEYS (up to about 340 bytes a count), or use Redis`, fields);
    }
  }
}
