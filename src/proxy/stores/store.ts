/** The count of one key after a hit, and how long until its window starts over. */
export interface RateLimitCount {
  count: number;
  resetInMs: number;
}

/** How a hit's count may be kept. */
export interface HitOptions {
  /**
   * What a store with a bound does with a new count when it is full. `'forget'`: the count may be dropped
   * to make room (the per-address and per-visitor query limits). `'refuse'` (the default): kept until its
   * window ends, and refused when full (`hit` throws `StoreFullError`): a spent challenge, an address's
   * sessions, so new sessions are refused. `'reserve'`: kept too, and may use the room held back for what
   * is already under way (a session's questions and its answer, the daily budget), so those go on when full.
   */
  whenFull?: 'forget' | 'refuse' | 'reserve';
}

/** Where a store tells the operator what it sees go wrong (the proxy's log). */
export type StoreLog = (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;

/**
 * Where the proxy keeps its rate-limit counts. A fixed window per key: the
 * first hit starts a window of `windowMs`; every hit in it adds one.
 * Implement it to keep counts elsewhere (a database, a platform's KV).
 */
export interface RateLimitStore {
  /** Adds one hit to `key` and returns the count in its current window. */
  hit(key: string, windowMs: number, options?: HitOptions): Promise<RateLimitCount>;
  /** Ends `key`'s window at once (a session's answer under way lets go of its hold). Needed for visitor sessions. */
  release?(key: string): Promise<void>;
  /** Adds `values` at the end of the list at `key`, in order, which then expires `ttlMs` from now. Needed for insights. */
  append?(key: string, values: readonly string[], ttlMs: number): Promise<void>;
  /** The list at `key`, oldest first; `[]` when there is none. Needed for insights. */
  list?(key: string): Promise<string[]>;
  /** Takes every copy of these values out of the list at `key`; gives how many went. Needed for insights. */
  remove?(key: string, values: readonly string[]): Promise<number>;
  /** Called once by the proxy with its log: the store reports there what would make it forget or refuse counts (full, evicting, restarted empty). */
  watch?(log: StoreLog): void;
  /** Lets go of connections and timers. */
  close?(): Promise<void>;
}

/** No room left for a count that must be kept: the proxy refuses the request rather than forget a count. */
export class StoreFullError extends Error {
  /** Counts held, every one still in its window. */
  readonly held: number;

  constructor(held: number) {
    super(`The rate-limit store is full: ${held} counts held, all still counting`);
    this.name = 'StoreFullError';
    this.held = held;
  }
}
