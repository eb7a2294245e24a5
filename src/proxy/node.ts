// Node: serves the proxy over HTTP with srvx, counting requests by the socket's address.
import { serve } from 'srvx/node';
import type { ServerRequest } from 'srvx';
import { createProxy, type ProxyHandler } from './proxy.js';
import type { ProxyOptions } from './options.js';
import { internalErrorResponse } from './responses.js';
import { createNodeFetch } from './node-fetch.js';

export interface ServeProxyOptions {
  /** Default: 8788. `0` picks a free port. */
  port?: number;
  /** Default: `127.0.0.1`. Use `0.0.0.0` to accept connections from other machines (containers, hosts). */
  host?: string;
  /** Finish open requests on SIGINT/SIGTERM before exiting. Default: false. */
  gracefulShutdown?: boolean;
}

export interface RunningProxy {
  /** Where it listens, e.g. `http://127.0.0.1:8788/`. */
  url: string;
  /** Stops listening and ends open connections. */
  close(): Promise<void>;
}

/**
 * Serves a proxy (or the options to make one) on Node. Made from options, it
 * calls the service with `createNodeFetch()` unless `fetch` is given.
 */
export async function serveProxy(proxy: ProxyHandler | ProxyOptions, { port = 8788, host = '127.0.0.1', gracefulShutdown = false }: ServeProxyOptions = {}): Promise<RunningProxy> {
  const handler = typeof proxy === 'function' ? proxy : createProxy({ ...proxy, fetch: proxy.fetch ?? createNodeFetch() });
  const server = serve({
    port,
    hostname: host,
    silent: true,
    gracefulShutdown,
    // The socket's address only: X-Forwarded-For is the proxy's to read, with its trusted hop count.
    trustProxy: false,
    fetch: (request: ServerRequest) => handler(request, { clientAddress: request.ip }),
    // The handler never throws; this is the last line should srvx itself fail.
    error: () => internalErrorResponse(),
  });
  await server.ready();
  return {
    url: server.url ?? `http://${host}:${port}/`,
    close: () => server.close(true),
  };
}

export { createProxy, createNodeFetch };
export type { NodeFetchOptions } from './node-fetch.js';
