// The core's one door: what the Node server (../node), the platform entries
// (../runtimes) and the package entry (../index.ts) may use of it. It is
// runtime-neutral: plain values in (`VisitorRequest`), plain values out (`ProxyAnswer`).
export { createProxyCore, type ProxyCore, type VisitorRequest } from './proxy.js';
export { createProxy, webHandler, type ProxyHandler, type ProxyRequestContext } from './web.js';
export { checkProxyOptions, ProxyConfigError, DEFAULTS, type ProxyOptions, type RateLimit } from './options.js';
export { summarizeProxy, type ProxySummary } from './startup.js';
export { secretsFromEnv, parseRateLimit, proxyOptionsFromEnv, serveOptionsFromEnv, workersFromEnv, type Env, type ServerSettings } from './env.js';
export { errorResponse, internalErrorResponse, type ProxyAnswer } from './responses.js';
export type { UpstreamCall, UpstreamReply } from './upstream.js';
export { addressKey } from './client-address.js';
export { redactText } from './redact.js';
export { consoleLogger, createRateLimitedLog, type Log, type ProxyLogger, type ProxyLogEntry, type RateLimitedLog } from './log.js';
