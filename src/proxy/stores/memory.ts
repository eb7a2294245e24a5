import { PackedList } from './packed-list.js';
import { StoreFullError, type HitOptions, type RateLimitCount, type RateLimitStore, type StoreLog } from './store.js';

interface Window {
  count: number;
  resetsAt: number;
}

interface List {
  values: PackedList;
  expiresAt: number;
}

/** Counts held by default: up to about 34 MB of heap when full (`npm run bench -- memory-store`; docs/proxy.md, Rate-limit stores). */
export const DEFAULT_MEMORY_STORE_MAX_KEYS = 100_000;
/** The share of the room new counts that must be kept cannot take: held back for sessions under way and the daily budget. */
const RESERVED_SHARE = 0.2;
/** How often, at most, a full store says so in the log. */
const REPORT_EVERY_MS = 60_000;
/** How often, at most, a full store looks for ended windows before dropping or refusing: a flood at capacity costs no sweep per hit. */
const FULL_SWEEP_EVERY_MS = 1000;

/**
 * Counts in this process's memory: right for one Node, Deno or Bun process.
 * Serverless and edge platforms run many short-lived instances, each with its
 * own memory: use a shared store there (`RedisRateLimitStore`).
 *
 * It holds at most `maxKeys` counts. When full, a count that may be forgotten (a
 * per-address or per-visitor query limit) makes room by dropping the oldest of its
 * kind; every other count is kept until its window ends. New ones that must be kept
 * (a spent challenge, an address's sessions) are refused (`StoreFullError`) once those
 * fill all but the last `RESERVED_SHARE` of the room, which stays for counts of what is
 * under way (a session's questions and answer, the daily budget): the proxy then
 * refuses new sessions while the ones started go on.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  /** Kept until their window ends. Maps keep insertion order, so each map's first key is its oldest window. */
  readonly #kept = new Map<string, Window>();
  readonly #forgettable = new Map<string, Window>();
  readonly #maxKeys: number;
  /** Most kept counts before new ones are refused: the rest of the room is held back for what is under way. */
  readonly #newLimit: number;
  readonly #lists = new Map<string, List>();
  readonly #maxListValues: number;
  #listValues = 0;
  readonly #now: () => number;
  #hitsSinceSweep = 0;
  #lastSweep = -Infinity;
  #log: StoreLog | undefined;
  /** What being full cost since each kind's last report: counts refused, counts dropped or not kept. */
  readonly #pressure = { refused: { count: 0, reportedAt: -Infinity }, forgotten: { count: 0, reportedAt: -Infinity } };

  /**
   * `maxKeys` bounds memory under a flood of distinct addresses (up to about 340 bytes a count). `maxListValues` bounds
   * the values of all lists together (insights' records, a few hundred bytes each): past it `append` refuses.
   */
  constructor({ maxKeys = DEFAULT_MEMORY_STORE_MAX_KEYS, maxListValues = 200_000, now = Date.now }: { maxKeys?: number; maxListValues?: number; now?: () => number } = {}) {
    if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new RangeError(`maxKeys must be a whole number above 0 (got ${maxKeys})`);
    this.#maxKeys = maxKeys;
    this.#newLimit = Math.max(1, Math.floor(maxKeys * (1 - RESERVED_SHARE)));
    this.#maxListValues = maxListValues;
    this.#now = now;
  }

  async hit(key: string, windowMs: number, options?: HitOptions): Promise<RateLimitCount> {
    const now = this.#now();
    const whenFull = options?.whenFull ?? 'refuse';
    const windows = whenFull === 'forget' ? this.#forgettable : this.#kept;
    // Swept on use rather than by a timer: edge runtimes forbid timers outside a request.
    if (++this.#hitsSinceSweep >= 1000) this.#sweep(now);
    let window = windows.get(key);
    if (!window || window.resetsAt <= now) {
      // An ended window starts over at the end of the order; a new key needs room.
      if (window) windows.delete(key);
      else if (!this.#makeRoom(now, whenFull)) {
        // No room: a forgettable count goes uncounted, any other is refused.
        if (whenFull === 'forget') return { count: 1, resetInMs: windowMs };
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

  async append(key: string, values: readonly string[], ttlMs: number): Promise<void> {
    const now = this.#now();
    let list = this.#liveList(key, now);
    if (!list) {
      // Lists are few (one a day for insights): expired ones are dropped when a new one starts.
      for (const [other, held] of this.#lists) if (held.expiresAt <= now) this.#dropList(other, held);
      this.#lists.set(key, (list = { values: new PackedList(), expiresAt: 0 }));
    }
    if (this.#listValues + values.length > this.#maxListValues) throw new Error(`the memory store holds ${this.#listValues} list values already, and at most ${this.#maxListValues} (maxListValues)`);
    list.values.push(values);
    list.expiresAt = now + ttlMs;
    this.#listValues += values.length;
  }

  async list(key: string): Promise<string[]> {
    return this.#liveList(key, this.#now())?.values.values() ?? [];
  }

  async remove(key: string, values: readonly string[]): Promise<number> {
    const list = this.#liveList(key, this.#now());
    if (!list) return 0;
    const removed = list.values.remove(new Set(values));
    this.#listValues -= removed;
    if (list.values.length === 0) this.#lists.delete(key);
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
    this.#lists.clear();
    this.#listValues = 0;
    this.#kept.clear();
    this.#forgettable.clear();
  }

  /** Whether a new key fits, after sweeping ended windows or dropping the oldest forgettable count. */
  #makeRoom(now: number, whenFull: NonNullable<HitOptions['whenFull']>): boolean {
    // Forgettable counts never take room from kept ones: only kept counts are weighed against the kept limits.
    const keptLimit = whenFull === 'refuse' ? this.#newLimit : this.#maxKeys;
    if (whenFull !== 'forget' && this.#kept.size >= keptLimit && !(this.#sweepIfDue(now) && this.#kept.size < keptLimit)) {
      this.#report(now, 'refused');
      return false;
    }
    if (this.size < this.#maxKeys || (this.#sweepIfDue(now) && this.size < this.#maxKeys)) return true;
    const oldest = this.#forgettable.keys().next();
    if (!oldest.done) this.#forgettable.delete(oldest.value);
    this.#report(now, 'forgotten');
    return !oldest.done;
  }

  /** Sweeps ended windows, at most once a second when full: a flood at capacity costs no sweep per hit. Whether it swept. */
  #sweepIfDue(now: number): boolean {
    if (now - this.#lastSweep < FULL_SWEEP_EVERY_MS) return false;
    this.#sweep(now);
    return true;
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
    const fields = { held: this.size, kept: this.#kept.size, maxKeys: this.#maxKeys, [cost]: pressure.count };
    pressure.count = 0;
    pressure.reportedAt = now;
    if (cost === 'refused') {
      this.#log('error', `the memory store is full: ${this.#kept.size} counts held that must be kept until they expire; new sessions are refused with 503 until some do (${fields.refused} refused since the last report), while sessions under way go on in the room held back for them. Raise KAGENT_MEMORY_STORE_MAX_KEYS (up to about 340 bytes a count), or use Redis`, fields);
    } else {
      this.#log('warn', `the memory store is full: ${this.size} counts held; the oldest per-address and per-visitor query counts are dropped to make room (${fields.forgotten} since the last report). Raise KAGENT_MEMORY_STORE_MAX_KEYS (up to about 340 bytes a count), or use Redis`, fields);
    }
  }
}
