// Node: serves the proxy over node:http, counting requests by the socket's address.
// Made from options, requests to a path go to the core directly (visitor.ts) and the
// service is called through undici without Web objects (upstream-call.ts); other
// requests, and a Web handler given instead of options, go through srvx's adapter.
import cluster from 'node:cluster';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from 'srvx/node';
import type { ServerRequest } from 'srvx';
import {
  consoleLogger,
  createProxyCore,
  createRateLimitedLog,
  internalErrorResponse,
  ProxyConfigError,
  webHandler,
  type ProxyHandler,
  type ProxyLogger,
  type ProxyOptions,
} from '../core/index.js';
import { defaultConnectionLimits, guardConnections, serverTimeouts, type ConnectionLimits } from './connections.js';
import { createUpstreamCall } from './upstream-call.js';
import { nodeVisitorHandler } from './visitor.js';

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
 * is served from its core on `node:http` directly, without Web
 * `Request`/`Response` objects, and calls the service through undici's pool
 * the same way unless `fetch` is given. A Web handler (one made by
 * `createProxy`, or any other), and requests whose target is not a path, go
 * through srvx. Connections are bounded (`ConnectionLimits`; defaults in docs/proxy.md).
 */
export async function serveProxy(proxy: ProxyHandler | ProxyOptions, options: ServeProxyOptions = {}): Promise<RunningProxy> {
  const { port = 8788, host = '127.0.0.1', gracefulShutdown = false, log: logger, ...given } = options;
  const limits = resolveLimits(given);
  const core = typeof proxy === 'function' ? undefined : createProxyCore(proxy, proxy.fetch ? undefined : createUpstreamCall());
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
  const viaWeb = webRequests(core ? webHandler(core) : (proxy as ProxyHandler));
  const server = createServer(serverTimeouts(limits), core ? nodeVisitorHandler(core, viaWeb) : viaWeb);
  // Before the first connection can arrive.
  const guard = guardConnections(server, limits, log);
  // Made from options, the proxy's store is let go of once the server has closed: a Redis connection would keep the process alive.
  const stopWatchingSignals = gracefulShutdown ? closeOnSignals(server, async () => (typeof proxy === 'function' ? undefined : proxy.rateLimitStore?.close?.())) : undefined;
  await listen(server, {
    port,
    host,
    backlog: limits.backlog,
    // A worker of `KAGENT_WORKERS` shares the primary's socket; a lone process listens exclusively.
    exclusive: !cluster.isWorker,
    reusePort: cluster.isWorker,
  });
  return {
    url: urlOf(server.address() as AddressInfo),
    limits,
    get openConnections() {
      return guard.open;
    },
    close: async () => {
      stopWatchingSignals?.();
      server.closeAllConnections();
      if (server.listening) await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** Serves a Web handler on node:http through srvx, which makes its `Request` and writes its `Response`. */
function webRequests(handler: ProxyHandler): NodeHandler {
  const viaSrvx = toNodeHandler(
    async (request: ServerRequest) => {
      try {
        // The socket's address only (`trustProxy: false`): X-Forwarded-For is the proxy's to read, with its trusted hop count.
        return await handler(request, { clientAddress: request.ip });
      } catch {
        // The proxy's handler never throws; another one might.
        return internalErrorResponse();
      }
    },
    { trustProxy: false },
  ) as NodeHandler;
  return (req, res) => {
    // A target neither a path, `*` nor an absolute http(s) address is refused, as srvx's own server does.
    const target = req.url;
    if (target && target[0] !== '/' && target !== '*' && !isAbsoluteHttp(target)) {
      res.statusCode = 400;
      res.end();
      return;
    }
    viaSrvx(req, res);
  };
}

function isAbsoluteHttp(target: string): boolean {
  if (!URL.canParse(target)) return false;
  const url = new URL(target);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.host !== '';
}

function listen(server: Server, options: { port: number; host: string; backlog: number; exclusive: boolean; reusePort: boolean }): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(options, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

function urlOf(address: AddressInfo): string {
  const host = address.address.includes(':') ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}/`;
}

/** How long open requests get to finish after SIGINT or SIGTERM before their connections are closed. */
const SHUTDOWN_GRACE_MS = 5000;

/**
 * On SIGINT or SIGTERM: stop listening and let open requests finish, closing
 * what is still open after `SHUTDOWN_GRACE_MS` (or at a second signal). Gives
 * back what stops watching.
 */
function closeOnSignals(server: Server, afterClose: () => Promise<void>): () => void {
  let closing = false;
  const onSignal = () => {
    if (closing) {
      server.closeAllConnections();
      return;
    }
    closing = true;
    const forced = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    forced.unref();
    server.close(() => {
      clearTimeout(forced);
      stop();
      afterClose().catch(() => {});
    });
  };
  const stop = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return stop;
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

