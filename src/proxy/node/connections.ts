// Node: bounds on the connections a public-facing proxy accepts, so that
// visitors are served while others open connections and send nothing, send
// slowly, or stop reading. The limits nginx keeps by default, on node:http.
import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { addressKey, type RateLimitedLog } from '../core/index.js';

export interface ConnectionLimits {
  /** From accept (or a kept-alive connection's next request's first byte) until the request's headers are in, in ms. The whole request, body included, gets twice this. */
  headerTimeoutMs: number;
  /** Longest silence on a connection with a request under way, in ms: no byte read from or written to it (a visitor who stopped reading). */
  idleTimeoutMs: number;
  /** Most connections open at once. At the limit, the connection idle longest (no request under way) is closed to make room; with none idle, the new one is refused. */
  maxConnections: number;
  /** Most connections open at once from one address (IPv6: one /64). `false`: no cap (behind a load balancer, every connection comes from it). */
  maxConnectionsPerAddress: number | false;
  /** Connections the kernel queues before they are accepted (capped by `net.core.somaxconn` on Linux). */
  backlog: number;
}

/** A kept-alive connection waits this long for its next request (Node's own default), or the header timeout if shorter. */
const KEEP_ALIVE_MS = 5000;
/** File descriptors kept for everything but visitors' connections: stdio, the event loop, Redis, log files. */
const RESERVED_FDS = 64;
/** The default connection cap where the file limit is unknown or unlimited. */
const DEFAULT_MAX_CONNECTIONS = 10_000;

/**
 * The defaults: header timeout 10 s, idle timeout 60 s (above the 30 s the
 * service gets to answer, so its timeout is what the visitor sees), 128
 * connections per address, a backlog of 4096, and as many connections as
 * the process's open-file limit allows with one upstream connection each.
 */
export function defaultConnectionLimits(): ConnectionLimits {
  return { headerTimeoutMs: 10_000, idleTimeoutMs: 60_000, maxConnections: maxConnectionsForFileLimit(openFileLimit()), maxConnectionsPerAddress: 128, backlog: 4096 };
}

/** Half of what the open-file limit leaves after a reserve: each visitor's request also holds a connection to the service. */
export function maxConnectionsForFileLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_MAX_CONNECTIONS;
  return Math.max(16, Math.min(DEFAULT_MAX_CONNECTIONS, Math.floor((limit - RESERVED_FDS) / 2)));
}

/** This process's soft open-file limit (`ulimit -n`), read from /proc on Linux; `undefined` elsewhere or when unlimited. */
export function openFileLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    const soft = line ? Number(line[1]) : NaN;
    return Number.isFinite(soft) ? soft : undefined;
  } catch {
    return undefined;
  }
}

/** Options for node:http's server, to be given when it is created: its own header and request timers, checked often enough to act on time. */
export function serverTimeouts(limits: ConnectionLimits): { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number } {
  return {
    headersTimeout: limits.headerTimeoutMs,
    requestTimeout: limits.headerTimeoutMs * 2,
    connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(limits.headerTimeoutMs / 4))),
  };
}

export interface ConnectionGuard {
  /** Connections open now. */
  readonly open: number;
}

/**
 * Applies the limits to a node:http server created with `serverTimeouts`:
 * counts connections per address and in all, closes the longest-idle one
 * (or refuses the new one) at the cap, closes connections that time out, and
 * logs each of these through `log` (at most a line per kind per interval).
 */
export function guardConnections(server: Server, limits: ConnectionLimits, log: RateLimitedLog): ConnectionGuard {
  server.keepAliveTimeout = Math.min(KEEP_ALIVE_MS, limits.headerTimeoutMs);
  server.timeout = limits.idleTimeoutMs;

  let open = 0;
  const perAddress = new Map<string, number>();
  // Connections with no request under way, longest idle first (a Map keeps insertion order).
  const idle = new Map<Socket, true>();
  const busy = new WeakMap<Socket, number>();
  // Connections that carried a request: a silent one that never did is still waiting on its header timeout.
  const served = new WeakSet<Socket>();

  server.on('connection', (socket: Socket) => {
    const address = addressKey(socket.remoteAddress ?? '') ?? 'unknown';
    const fromAddress = perAddress.get(address) ?? 0;
    if (limits.maxConnectionsPerAddress !== false && fromAddress >= limits.maxConnectionsPerAddress) {
      log('per-address', 'warn', `refused connections: ${limits.maxConnectionsPerAddress} already open from this address (maxConnectionsPerAddress)`, { address });
      socket.destroy();
      return;
    }
    if (open >= limits.maxConnections) {
      const [longestIdle] = idle.keys();
      if (!longestIdle) {
        log('max-connections', 'warn', `refused connections: ${limits.maxConnections} open, all with a request under way (maxConnections)`);
        socket.destroy();
        return;
      }
      log('evicted', 'warn', `closed idle connections to make room: ${limits.maxConnections} open (maxConnections)`);
      longestIdle.destroy();
    }
    open++;
    perAddress.set(address, fromAddress + 1);
    idle.set(socket, true);
    socket.once('close', () => {
      open--;
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left > 0) perAddress.set(address, left);
      else perAddress.delete(address);
      idle.delete(socket);
    });
  });

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    idle.delete(socket);
    served.add(socket);
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    response.once('close', () => {
      const left = (busy.get(socket) ?? 1) - 1;
      busy.set(socket, left);
      // Idle again, and now the most recently active.
      if (left === 0 && !socket.destroyed) idle.set(socket, true);
    });
  });

  // No byte either way for idleTimeoutMs while a request is under way.
  server.on('timeout', (socket: Socket) => {
    // No request yet: the header timer's connection, whichever timer a busy event loop ran first, so it gets the 408.
    if (!served.has(socket) && socket.writable) return headerTimedOut(socket);
    log('idle-timeout', 'info', `closed connections silent for ${limits.idleTimeoutMs} ms (idleTimeoutMs)`);
    socket.destroy();
  });

  const refuse = (socket: Socket, status: string) => socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`, () => socket.destroy());
  const headerTimedOut = (socket: Socket) => {
    log('header-timeout', 'info', `closed connections that sent no complete request within ${limits.headerTimeoutMs} ms (headerTimeoutMs)`);
    refuse(socket, '408 Request Timeout');
  };

  // Replaces node:http's default answer to a broken or slow request, adding the log line.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // As node:http does: no answer of our own over a response already started, or on a socket the visitor reset.
    const started = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
    if (error.code === 'ECONNRESET' || !socket.writable || started) {
      socket.destroy();
      return;
    }
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return headerTimedOut(socket);
    log('bad-request', 'info', 'refused requests that are not valid HTTP', { error: error.code ?? error.message });
    refuse(socket, error.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request');
  });

  return {
    get open() {
      return open;
    },
  };
}
