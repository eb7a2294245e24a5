/**
 * The proxy: a Web-standard `(Request) => Promise<Response>` that holds the
 * service's API key and lets through only what a site visitor may do. Runs
 * on any runtime with fetch and web streams; the runtime entries
 * (`kagent-chat/proxy/node`, `/cloudflare`, `/vercel`, `/netlify`, `/deno`,
 * `/bun`) add each platform's address source and environment.
 *
 * Inside: core/ (the checks and forwarding, runtime-neutral), node/ (the Node
 * server and command), runtimes/ (the platform entries), stores/ (where counts are kept).
 */
export { createProxy, type ProxyHandler, type ProxyRequestContext } from './core/index.js';
export { ProxyConfigError, DEFAULTS, type ProxyOptions, type RateLimit } from './core/index.js';
export { proxyOptionsFromEnv, parseRateLimit, type Env } from './core/index.js';
export { consoleLogger, type ProxyLogger, type ProxyLogEntry } from './core/index.js';
export { StoreFullError, type RateLimitStore, type RateLimitCount, type HitOptions, type StoreLog } from './stores/store.js';
export { MemoryRateLimitStore } from './stores/memory.js';
export { RedisRateLimitStore, type RedisEval, type RedisRateLimitStoreOptions } from './stores/redis.js';
