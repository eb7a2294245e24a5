// `kagent-proxy`: serves the proxy on Node, configured from the environment (docs/proxy.md).
import cluster from 'node:cluster';
import { secretsFromEnv, checkProxyOptions, summarizeProxy, DEFAULTS, proxyOptionsFromEnv, redactText, serveOptionsFromEnv, workersFromEnv, type ProxyOptions } from '../core/index.js';
import { connectRedisRateLimitStore, safeAddress } from '../stores/redis-node.js';
import { DEFAULT_MEMORY_STORE_MAX_KEYS } from '../stores/memory.js';
import { endWithLauncher } from './launcher.js';
import { createBatchedConsoleLogger } from './log.js';
import { serveProxy } from './server.js';
import { printListening, type Listening } from './listening.js';
import { checkWorkersCanCount, runPrimary, type WorkerListening } from './workers.js';

async function main(): Promise<void> {
  const { redisUrl, ...options } = proxyOptionsFromEnv(process.env);
  const serveOptions = serveOptionsFromEnv(process.env);

  if (cluster.isPrimary) {
    // Under npm or npx, a signal to npm stops at its shell: the same graceful end as a SIGTERM of this process.
    endWithLauncher(() => {
      console.log(JSON.stringify({ level: 'info', message: 'npm or npx, which started kagent-proxy, has ended: stopping' }));
      process.kill(process.pid, 'SIGTERM');
    });
  }
  const workers = workersFromEnv(process.env);
  // Checked before connecting to anything, so a missing variable is the first thing the operator sees.
  checkProxyOptions(options);
  checkWorkersCanCount(workers, options, redisUrl);
  if (workers > 1 && cluster.isPrimary) return runPrimary(workers);
  const log = createBatchedConsoleLogger();
  // Made from options, the server calls the service through undici without Web objects (docs/benchmarks.md, Proxy).
  let proxyOptions: ProxyOptions = { ...options, log };
  if (redisUrl) {
    const store = await connectRedisRateLimitStore(redisUrl, { log: (level, message, fields) => log({ level, message, ...fields }) });
    proxyOptions = { ...proxyOptions, rateLimitStore: store };
    console.log(JSON.stringify({ level: 'info', message: `rate limits kept in Redis at ${safeAddress(redisUrl)}` }));
  } else if (workers === 1) {
    const maxKeys = options.memoryStoreMaxKeys ?? DEFAULT_MEMORY_STORE_MAX_KEYS;
    // Up to about 340 bytes a count (npm run bench -- memory-store).
    console.log(JSON.stringify({ level: 'info', message: `rate limits kept in this process's memory: at most ${maxKeys} counts (up to about ${Math.ceil((maxKeys * 340) / 1e6)} MB; KAGENT_MEMORY_STORE_MAX_KEYS); when full, new sessions are refused rather than a count forgotten` }));
  }
  const upstreamTimeoutMs = options.upstreamTimeoutMs ?? DEFAULTS.upstreamTimeoutMs;
  if (serveOptions.idleTimeoutMs !== undefined && serveOptions.idleTimeoutMs <= upstreamTimeoutMs) {
    // The connection would be closed before the service's own timeout could answer the visitor.
    console.warn(JSON.stringify({ level: 'warn', message: `KAGENT_IDLE_TIMEOUT_SECONDS (${serveOptions.idleTimeoutMs / 1000}) is not above KAGENT_UPSTREAM_TIMEOUT_SECONDS (${upstreamTimeoutMs / 1000}): a slow answer ends in a closed connection rather than a 504` }));
  }
  const running = await serveProxy(proxyOptions, { ...serveOptions, gracefulShutdown: true, log });
  if (cluster.isWorker) {
    // The graceful shutdown closes the server on these signals; the channel to the primary must not keep the worker alive after it.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.channel?.unref());
  }
  const { text, warnings, ...summary } = summarizeProxy(options);
  const listening: Listening = {
    level: 'info',
    message: `kagent proxy listening on ${running.url} for ${text}`,
    upstream: new URL(options.upstreamUrl).origin,
    ...summary,
    connections: running.limits,
    warnings,
  };
  // A worker's line is printed once by the primary, when every worker listens.
  if (cluster.isWorker) process.send!({ kagentListening: listening } satisfies WorkerListening);
  else printListening(listening);
}

main().catch((error: unknown) => {
  // Config errors name the variable and never hold the key; any other message is redacted as the log is.
  const message = error instanceof Error ? error.message : String(error);
  console.error(redactText(message, secretsFromEnv(process.env)));
  process.exit(1);
});
