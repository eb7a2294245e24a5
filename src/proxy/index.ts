/**
 * The proxy: a Web-standard `(Request) => Promise<Response>` that holds the
 * service's API key and lets through only what a site visitor may do. Runs
 * on any runtime with fetch and web streams; the runtime entries
 * (`kagent-chat/proxy/node`, `/cloudflare`, `/vercel`, `/netlify`, `/deno`,
 * `/bun`) add each platform's address source and environment.
 */
export { createProxy, type ProxyHandler, type ProxyRequestContext } from './proxy.js';
export { ProxyConfigError, DEFAULTS, type ProxyOptions, type RateLimit } from './options.js';
export { proxyOptionsFromEnv, parseRateLimit, type Env } from './env.js';
export type { RateLimitStore, RateLimitCount } from './rate-limit-store.js';
export { MemoryRateLimitStore } from './memory-store.js';
export { RedisRateLimitStore, type RedisEval, type RedisRateLimitStoreOptions } from './redis-store.js';
export { consoleLogger, type ProxyLogger, type ProxyLogEntry } from './log.js';
