/** The count of one key after a hit, and how long until its window starts over. */
export interface RateLimitCount {
  count: number;
  resetInMs: number;
}

/**
 * Where the proxy keeps its rate-limit counts. A fixed window per key: the
 * first hit starts a window of `windowMs`; every hit in it adds one.
 * Implement it to keep counts elsewhere (a database, a platform's KV).
 */
export interface RateLimitStore {
  /** Adds one hit to `key` and returns the count in its current window. */
  hit(key: string, windowMs: number): Promise<RateLimitCount>;
  /** Ends `key`'s window at once (a session's answer under way lets go of its hold). Needed for visitor sessions. */
  release?(key: string): Promise<void>;
  /** Adds `value` at the end of the list at `key`, which then expires `ttlMs` from now. Needed for insights. */
  append?(key: string, value: string, ttlMs: number): Promise<void>;
  /** The list at `key`, oldest first; `[]` when there is none. Needed for insights. */
  list?(key: string): Promise<string[]>;
  /** Takes every copy of these values out of the list at `key`; gives how many went. Needed for insights. */
  remove?(key: string, values: readonly string[]): Promise<number>;
  /** Lets go of connections and timers. */
  close?(): Promise<void>;
}
