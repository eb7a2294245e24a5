import { checkRedisKeeps, type RedisKeepsCheck } from './redis-keeps.js';
import type { RateLimitCount, RateLimitStore, StoreLog } from './store.js';

/**
 * Runs a Lua script on Redis. Every Redis client has one:
 * node-redis `(s, keys, args) => client.eval(s, { keys, arguments: args })`,
 * ioredis `(s, keys, args) => client.eval(s, keys.length, ...keys, ...args)`,
 * `@upstash/redis` (over HTTP, for edge runtimes) `(s, keys, args) => redis.eval(s, keys, args)`.
 */
export type RedisEval = (script: string, keys: string[], args: string[]) => Promise<unknown>;

// One round trip, atomic: count the hit, start the window on the first one, report what is left of it.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

const RELEASE_SCRIPT = `redis.call('DEL', KEYS[1]) return 1`;

// Insights' lists: values added at the end with the list's expiry renewed; the whole list; values taken out.
const APPEND_SCRIPT = `redis.call('RPUSH', KEYS[1], unpack(ARGV, 2)) redis.call('PEXPIRE', KEYS[1], ARGV[1]) return 1`;
const LIST_SCRIPT = `return redis.call('LRANGE', KEYS[1], 0, -1)`;
const REMOVE_SCRIPT = `local n = 0 for i = 1, #ARGV do n = n + redis.call('LREM', KEYS[1], 0, ARGV[i]) end return n`;

export interface RedisRateLimitStoreOptions {
  /** Runs the store's script on your Redis client. */
  eval: RedisEval;
  /** Put before every key, so several proxies or apps can share one Redis. Default: `kagent-proxy:`. */
  prefix?: string;
  /** Longest wait for Redis before the request is refused. Default: 1 s. */
  timeoutMs?: number;
  /** Called by `close()`, e.g. to disconnect the client. */
  close?: () => Promise<void>;
  /**
   * Reads one of Redis's settings (`CONFIG GET`), so the store can warn of a Redis that evicts keys or keeps
   * nothing on disk: node-redis `async (name) => (await client.configGet(name))[name]`. Without it (Upstash,
   * managed Redis that refuse CONFIG) the log says what could not be checked.
   */
  configGet?: (parameter: string) => Promise<string | undefined>;
  /**
   * Calls `listener` each time the client connects again: the store then checks that Redis still holds its
   * counts (node-redis `(listener) => client.on('ready', listener)`). Without it, it checks at most once a minute.
   */
  onReconnect?: (listener: () => void) => void;
}

/** Counts in Redis, so every proxy instance shares one limit. Works with any Redis client (see `RedisEval`). */
export class RedisRateLimitStore implements RateLimitStore {
  readonly #eval: RedisEval;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #close: (() => Promise<void>) | undefined;
  readonly #keeps: RedisKeepsCheck;
  readonly #reconnects: boolean;
  /** When a client without reconnect events next checks that Redis still holds the counts (0: at the next hit). */
  #nextCheckAt = Infinity;

  constructor(options: RedisRateLimitStoreOptions) {
    this.#eval = options.eval;
    this.#prefix = options.prefix ?? 'kagent-proxy:';
    this.#timeoutMs = options.timeoutMs ?? 1000;
    this.#close = options.close;
    this.#keeps = checkRedisKeeps({ run: (script, key, args) => this.#run(script, key, args), configGet: options.configGet });
    options.onReconnect?.(() => void this.#keeps.check('reconnect'));
    this.#reconnects = options.onReconnect !== undefined;
  }

  /**
   * Checks, now and on every reconnect, that Redis keeps the counts (no eviction, persistence on, its marker
   * still there), telling `log` what it finds. A client without reconnect events (an HTTP one) checks at its
   * first hit, inside a request as edge runtimes want, and then at most once a minute.
   */
  watch(log: StoreLog): void {
    this.#keeps.report(log);
    if (this.#reconnects) void this.#keeps.check('start');
    else this.#nextCheckAt = 0;
  }

  async hit(key: string, windowMs: number): Promise<RateLimitCount> {
    const script = this.#run(HIT_SCRIPT, key, [String(Math.max(1, Math.round(windowMs)))]);
    let reply: unknown;
    if (Date.now() < this.#nextCheckAt) reply = await script;
    else {
      const first = this.#nextCheckAt === 0;
      this.#nextCheckAt = Date.now() + 60_000;
      [reply] = await Promise.all([script, this.#keeps.check(first ? 'start' : 'again')]);
    }
    if (!Array.isArray(reply) || reply.length !== 2) throw new Error(`Redis answered the rate-limit script with ${JSON.stringify(reply)}`);
    const [count, ttl] = reply.map(Number) as [number, number];
    if (!Number.isFinite(count) || !Number.isFinite(ttl)) throw new Error(`Redis answered the rate-limit script with ${JSON.stringify(reply)}`);
    return { count, resetInMs: Math.max(0, ttl) };
  }

  async release(key: string): Promise<void> {
    await this.#run(RELEASE_SCRIPT, key, []);
  }

  async append(key: string, values: readonly string[], ttlMs: number): Promise<void> {
    if (values.length === 0) return;
    await this.#run(APPEND_SCRIPT, key, [String(Math.max(1, Math.round(ttlMs))), ...values]);
  }

  async list(key: string): Promise<string[]> {
    const reply = await this.#run(LIST_SCRIPT, key, []);
    if (!Array.isArray(reply)) throw new Error(`Redis answered the list script with ${JSON.stringify(reply)?.slice(0, 100)}`);
    return reply.map(String);
  }

  async remove(key: string, values: readonly string[]): Promise<number> {
    if (values.length === 0) return 0;
    return Number(await this.#run(REMOVE_SCRIPT, key, [...values]));
  }

  /** Runs a script on one key (the prefix put before it), failing after the timeout. */
  async #run(script: string, key: string, args: string[]): Promise<unknown> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Redis did not answer within ${this.#timeoutMs} ms`)), this.#timeoutMs);
    });
    try {
      return await Promise.race([this.#eval(script, [this.#prefix + key], args), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.#close?.();
  }
}
