// Deno and Deno Deploy: `Deno.serve(createDenoHandler())`, or `deno serve` of a module exporting `{ fetch }`.
import type { ProxyOptions } from '../core/index.js';
import { proxyFromPlatform } from './platform.js';

/** What `Deno.serve` passes beside the request. */
interface DenoServeInfo {
  remoteAddr?: { hostname?: string };
}

declare const Deno: { env: { toObject(): Record<string, string> } };

/** A `Deno.serve` handler serving the proxy, counting requests by the connection's address. Needs `--allow-net --allow-env`. */
export function createDenoHandler(overrides?: Partial<ProxyOptions>): (request: Request, info?: DenoServeInfo) => Promise<Response> {
  const handler = proxyFromPlatform({
    platform: 'Deno',
    overrides,
    env: () => Deno.env.toObject(),
    connectRedis: async (url) => (await import('../stores/redis-node.js')).connectRedisRateLimitStore(url),
  });
  return (request, info) => handler(request, { clientAddress: info?.remoteAddr?.hostname });
}

export default { fetch: createDenoHandler() };
