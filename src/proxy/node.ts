// Node: serves the proxy over HTTP, counting requests by the socket's address.
// srvx makes the server and listens; requests to a path go to the core directly
// (node-visitor.ts), the rest to the Web handler through srvx.
import cluster from 'node:cluster';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { serve } from 'srvx/node';
import type { ServerRequest } from 'srvx';
import { createProxy, proxyCoreOf, type ProxyHandler } from './proxy.js';
import { ProxyConfigError, type ProxyOptions } from './options.js';
import { internalErrorResponse } from './responses.js';
import { createNodeFetch, nodeUpstreamCall } from './node-fetch.js';
import { nodeVisitorHandler } from './node-visitor.js';
import { consoleLogger, createRateLimitedLog, type ProxyLogger } from './log.js';
import { defaultConnectionLimits, guardConnections, serverTimeouts, type ConnectionLimits } from './node-connections.js';
import type { Env } from './env.js';

export interface ServeProxyOptions extends Partial<ConnectionLimits> {
  /** Default: 8788. `0` picks a free port. */
  port?: number;
  /** Default: `127.0.0.1`. Use `0.0.0.0` to accept connections from other machines (containers, hosts). */
  host?: string;
  /** Finish open requests on SIGINT/SIGTERM before exiting. Default: false. */
  gracefulShutdown?: boolean;
  /** Where refused and timed-out connections are logged (at most a line per kind every 10 s). Default: the proxy's `log` when made from options, else the console. `false`: nowhere. */
  log?: ProxyLogger | false;
}

export interface RunningProxy {
  /** Where it listens, e.g. `http://127.0.0.1:8788/`. */
  url: string;
  /** The connection limits in force, defaults filled in. */
  limits: ConnectionLimits;
  /** Connections open now. */
  readonly openConnections: number;
  /** Stops listening and ends open connections. */
  close(): Promise<void>;
}

/**
 * Serves a proxy (or the options to make one) on Node. Made from options, it
 * calls the service with `createNodeFetch()` unless `fetch` is given.
 * Connections are bounded (`ConnectionLimits`; defaults in docs/proxy.md).
 * A proxy made by `createProxy` is served from its core on `node:http`
 * directly, without Web `Request`/`Response` objects; any other handler,
 * and requests whose target is not a path, through srvx.
 */
export async function serveProxy(proxy: ProxyHandler | ProxyOptions, options: ServeProxyOptions = {}): Promise<RunningProxy> {
  const { port = 8788, host = '127.0.0.1', gracefulShutdown = false, log: logger, ...given } = options;
  const limits = resolveLimits(given);
  const handler = typeof proxy === 'function' ? proxy : createProxy({ ...proxy, fetch: proxy.fetch ?? createNodeFetch() });
  const sink = logger ?? (typeof proxy === 'function' ? consoleLogger : proxy.log ?? consoleLogger);
  // Connection events carry addresses and counts only, never the key.
  const log = createRateLimitedLog((level, message, fields) => {
    if (sink === false) return;
    try {
      sink({ ...fields, level, message });
    } catch {
      // A logger that fails must not fail the server.
    }
  });
  const server = serve({
    port,
    hostname: host,
    silent: true,
    gracefulShutdown,
    // The socket's address only: X-Forwarded-For is the proxy's to read, with its trusted hop count.
    trustProxy: false,
    // Given to node:http's createServer and to listen().
    node: { ...serverTimeouts(limits), backlog: limits.backlog },
    // srvx listens exclusively unless told otherwise; a worker of `KAGENT_WORKERS` must share the primary's socket.
    reusePort: cluster.isWorker,
    fetch: (request: ServerRequest) => handler(request, { clientAddress: request.ip }),
    // The handler never throws; this is the last line should srvx itself fail.
    error: () => internalErrorResponse(),
  });
  const httpServer = server.node!.server as Server;
  // A handler made by createProxy is served from its core without Web Request and Response objects; any other through srvx.
  const made = proxyCoreOf(handler);
  if (made) {
    const srvxHandler = server.node!.handler as (req: IncomingMessage, res: ServerResponse) => void;
    httpServer.off('request', srvxHandler);
    httpServer.on('request', nodeVisitorHandler(made.core, made.fetch && nodeUpstreamCall(made.fetch), srvxHandler));
  }
  // Before the first connection can arrive: listening starts on a later turn.
  const guard = guardConnections(httpServer, limits, log);
  await server.ready();
  return {
    url: server.url ?? `http://${host}:${port}/`,
    limits,
    get openConnections() {
      return guard.open;
    },
    close: () => server.close(true),
  };
}

function resolveLimits(given: Partial<ConnectionLimits>): ConnectionLimits {
  const limits = { ...defaultConnectionLimits() };
  const problems: string[] = [];
  for (const name of ['headerTimeoutMs', 'idleTimeoutMs', 'maxConnections', 'backlog'] as const) {
    const value = given[name];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 1) problems.push(`${name} must be a whole number of at least 1`);
    else limits[name] = value;
  }
  const perAddress = given.maxConnectionsPerAddress;
  if (perAddress !== undefined) {
    if (perAddress !== false && (!Number.isInteger(perAddress) || perAddress < 1)) problems.push('maxConnectionsPerAddress must be a whole number of at least 1, or false');
    else limits.maxConnectionsPerAddress = perAddress;
  }
  if (problems.length) throw new ProxyConfigError(`kagent proxy cannot start: ${problems.join('; ')}`);
  return limits;
}

/**
 * `serveProxy`'s options from the environment: `PORT`, `HOST`, and the
 * connection limits (`KAGENT_HEADER_TIMEOUT_SECONDS`, `KAGENT_IDLE_TIMEOUT_SECONDS`,
 * `KAGENT_MAX_CONNECTIONS`, `KAGENT_MAX_CONNECTIONS_PER_ADDRESS`, `KAGENT_LISTEN_BACKLOG`).
 * Behind trusted proxies (`KAGENT_TRUSTED_PROXY_HOPS` above 0) every connection
 * comes from them, so the per-address cap is off unless set.
 */
export function serveOptionsFromEnv(env: Env): ServeProxyOptions {
  const problems: string[] = [];
  const get = (name: string) => env[name]?.trim() || undefined;
  const whole = (name: string, min = 1) => {
    const value = get(name);
    if (value === undefined) return undefined;
    if (!/^\d+$/.test(value) || Number(value) < min) {
      problems.push(`${name} must be a whole number of at least ${min} (got ${JSON.stringify(value)})`);
      return undefined;
    }
    return Number(value);
  };
  const options: ServeProxyOptions = { port: 8788, host: get('HOST') ?? '127.0.0.1' };
  const port = whole('PORT', 0);
  if (port !== undefined) {
    if (port > 65535) problems.push(`PORT must be a port number (got ${JSON.stringify(get('PORT'))})`);
    else options.port = port;
  }
  const seconds = (name: string) => {
    const value = whole(name);
    return value === undefined ? undefined : value * 1000;
  };
  const set = <K extends keyof ServeProxyOptions>(key: K, value: ServeProxyOptions[K] | undefined) => {
    if (value !== undefined) options[key] = value;
  };
  set('headerTimeoutMs', seconds('KAGENT_HEADER_TIMEOUT_SECONDS'));
  set('idleTimeoutMs', seconds('KAGENT_IDLE_TIMEOUT_SECONDS'));
  set('maxConnections', whole('KAGENT_MAX_CONNECTIONS'));
  set('backlog', whole('KAGENT_LISTEN_BACKLOG'));
  const perAddress = get('KAGENT_MAX_CONNECTIONS_PER_ADDRESS');
  if (perAddress !== undefined && /^off$/i.test(perAddress)) options.maxConnectionsPerAddress = false;
  else set('maxConnectionsPerAddress', whole('KAGENT_MAX_CONNECTIONS_PER_ADDRESS'));
  if (perAddress === undefined && /^[1-9]\d*$/.test(get('KAGENT_TRUSTED_PROXY_HOPS') ?? '')) options.maxConnectionsPerAddress = false;
  if (problems.length) throw new ProxyConfigError(`kagent proxy cannot start: ${problems.join('; ')}`);
  return options;
}

export { createProxy, createNodeFetch };
export type { NodeFetchOptions } from './node-fetch.js';
export type { ConnectionLimits } from './node-connections.js';
