// Bun: `Bun.serve({ hostname: '127.0.0.1', port: 8788, fetch: createBunHandler() })`.
import type { ProxyOptions } from '../core/index.js';
import { proxyFromPlatform } from './platform.js';

/** The part of Bun's server the handler uses. */
interface BunServer {
  requestIP(request: Request): { address: string } | null;
}

/** A `Bun.serve` fetch handler serving the proxy, counting requests by the connection's address. */
export function createBunHandler(overrides?: Partial<ProxyOptions>): (request: Request, server?: BunServer) => Promise<Response> {
  const handler = proxyFromPlatform({
    platform: 'Bun',
    overrides,
    env: () => process.env,
    connectRedis: async (url) => (await import('../stores/redis-node.js')).connectRedisRateLimitStore(url),
  });
  return (request, server) => handler(request, { clientAddress: server?.requestIP(request)?.address });
}
