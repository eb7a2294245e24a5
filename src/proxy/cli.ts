// `kagent-proxy`: serves the proxy on Node, configured from the environment (docs/proxy.md).
import { connectRedisRateLimitStore, safeAddress } from './redis-node.js';
import { proxyOptionsFromEnv } from './env.js';
import { consoleLogger } from './log.js';
import { ProxyConfigError, type ProxyOptions } from './options.js';
import { createProxy } from './proxy.js';
import { createNodeFetch, serveProxy } from './node.js';

async function main(): Promise<void> {
  const { redisUrl, ...options } = proxyOptionsFromEnv(process.env);
  const port = process.env.PORT?.trim() ? Number(process.env.PORT) : 8788;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ProxyConfigError(`PORT must be a port number (got ${JSON.stringify(process.env.PORT)})`);
  const host = process.env.HOST?.trim() || '127.0.0.1';

  // Checked before connecting to anything, so a missing variable is the first thing the operator sees.
  createProxy({ ...options, log: false });
  // Node's own fetch costs about three times the CPU per request (docs/benchmarks.md, Proxy).
  let proxyOptions: ProxyOptions = { ...options, fetch: createNodeFetch() };
  if (redisUrl) {
    const store = await connectRedisRateLimitStore(redisUrl, { log: (level, message, fields) => consoleLogger({ level, message, ...fields }) });
    proxyOptions = { ...proxyOptions, rateLimitStore: store };
    console.log(JSON.stringify({ level: 'info', message: `rate limits kept in Redis at ${safeAddress(redisUrl)}` }));
  }
  const proxy = createProxy(proxyOptions);
  const running = await serveProxy(proxy, { port, host, gracefulShutdown: true });
  console.log(
    JSON.stringify({
      level: 'info',
      message: `kagent proxy listening on ${running.url}`,
      upstream: new URL(options.upstreamUrl).origin,
      agents: options.agentIds,
      datastores: options.datastoreIds ?? [],
      allowedOrigins: options.allowedOrigins ?? [],
    }),
  );
}

main().catch((error: unknown) => {
  // Config errors name the variable; they never hold the key, which is never echoed.
  const message = error instanceof ProxyConfigError || error instanceof Error ? error.message : String(error);
  const key = process.env.KAGENT_API_KEY?.trim();
  console.error(key ? message.split(key).join('[REDACTED]') : message);
  process.exit(1);
});
