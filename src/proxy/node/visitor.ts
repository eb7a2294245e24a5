// Node: serves the proxy's core straight from node:http, without building a
// Web Request and Response for each visitor: those objects cost more CPU per
// request than everything the proxy itself checks (docs/benchmarks.md, Proxy).
// The core, its checks and its answers are the same ones the Web handler
// uses; only the reading of the request and the writing of the answer differ.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ProxyAnswer, ProxyCore, VisitorRequest } from '../core/index.js';
import { readNodeBodyCapped, type CappedBody } from './read-capped.js';

/** Paths whose `new URL(...).pathname` is the path itself: nothing to resolve, decode or re-encode. */
const PLAIN_PATH = /^\/[A-Za-z0-9_\-/]*$/;
/** Headers node:http keeps only the first of when repeated; `Headers.get` joins them all. */
const FIRST_ONLY = new Set(['content-type', 'content-length']);

/**
 * A node:http request handler for `core`. Requests whose target is not a
 * path (`*`, absolute form) go to `fallback`: the same core's Web handler, through srvx.
 */
export function nodeVisitorHandler(core: ProxyCore, fallback: (req: IncomingMessage, res: ServerResponse) => void): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const target = req.url;
    let pathname: string;
    try {
      if (!target || target[0] !== '/') return fallback(req, res);
      // As srvx makes the request's URL (the host is the visitor's and decides nothing about the path).
      pathname = PLAIN_PATH.test(target) ? target : new URL(`http://h${target}`).pathname;
    } catch {
      return fallback(req, res);
    }
    core.answer(visitorOf(req, res, pathname, target)).then(
      (answer) => writeAnswer(res, answer),
      // The core never throws; this is the last line should writing fail.
      () => fail(res),
    );
  };
}

function visitorOf(req: IncomingMessage, res: ServerResponse, pathname: string, target: string): VisitorRequest {
  return {
    method: req.method ?? 'GET',
    pathname,
    search: () => new URL(`http://h${target}`).search,
    header: (name) => header(req, name),
    // The socket's address only: X-Forwarded-For is the core's to read, with its trusted hop count.
    clientAddress: req.socket.remoteAddress,
    readBody: (maxBytes) => readBody(req, res, maxBytes),
    // The response's close event, watched only by requests that go to the service.
    onLeave: (listener) => {
      const onClose = () => {
        if (req.errored || !res.writableEnded) listener();
      };
      if (res.destroyed || clientGone(req)) {
        onClose();
        return noop;
      }
      res.on('close', onClose);
      return () => res.off('close', onClose);
    },
  };
}

const noop = () => {};

function clientGone(req: IncomingMessage): boolean {
  return req.aborted || !!req.errored || (req.destroyed && !req.complete);
}

function header(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  if (value === undefined) return null;
  if (Array.isArray(value)) return value.join(', ');
  if (!FIRST_ONLY.has(name)) return value;
  // Repeated: every value, joined, as a Web Request's headers give it.
  const raw = req.rawHeaders;
  let joined: string | null = null;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]!.length === name.length && raw[i]!.toLowerCase() === name) joined = joined === null ? raw[i + 1]! : `${joined}, ${raw[i + 1]!}`;
  }
  return joined ?? value;
}

/**
 * Reads the body up to `maxBytes`. Past that it stops, and the connection
 * closes once the answer is written.
 */
function readBody(req: IncomingMessage, res: ServerResponse, maxBytes: number): Promise<CappedBody> {
  if (req.method === 'GET' || req.method === 'HEAD') return Promise.resolve({ bytes: new Uint8Array(0), complete: true });
  // Gone or already read: nothing more will come (srvx gives an errored body then too).
  if (clientGone(req) || req.destroyed || req.readableEnded) return Promise.reject(new Error('the request body is no longer readable'));
  const drainAndClose = () => {
    // The refusal is written with Connection: close (as nginx does after a 413), and what
    // arrives until then is discarded: the rest of the body is never read.
    res.shouldKeepAlive = false;
    req.resume();
  };
  return readNodeBodyCapped(req, maxBytes, drainAndClose, () => new Error('the visitor closed the connection before the body ended'));
}

/** Writes the answer: a fixed body in one piece, a relayed stream as the visitor reads it (never ahead of them). */
function writeAnswer(res: ServerResponse, answer: ProxyAnswer): void {
  const { body } = answer;
  if (res.destroyed) {
    if (body instanceof ReadableStream) body.cancel().catch(() => {});
    return;
  }
  try {
    res.writeHead(answer.status, answer.headers);
  } catch {
    if (body instanceof ReadableStream) body.cancel().catch(() => {});
    return fail(res);
  }
  if (body === null) res.end();
  else if (body instanceof Uint8Array) res.end(body);
  else if (res.req.method === 'HEAD') {
    body.cancel().catch(() => {});
    res.end();
  } else relay(body, res);
}

function relay(stream: ReadableStream<Uint8Array>, res: ServerResponse): void {
  const reader = stream.getReader();
  const cancel = (error?: unknown) => {
    reader.cancel(error).catch(() => {});
    if (error) res.destroy(error instanceof Error ? error : undefined);
  };
  const next = (): void => {
    reader.read().then(({ done, value }) => {
      try {
        if (done) res.end();
        else if (res.write(value)) next();
        else res.once('drain', next);
      } catch (error) {
        cancel(error);
      }
    }, cancel);
  };
  // The visitor left: the relay cancels the service's request.
  const onClose = () => cancel();
  res.on('close', onClose);
  res.on('error', onClose);
  reader.closed.catch(cancel).finally(() => {
    res.off('close', onClose);
    res.off('error', onClose);
  });
  next();
}

/** An unexpected failure while answering: a bare 500 if nothing was sent yet, else the connection closed. */
function fail(res: ServerResponse): void {
  if (res.writableEnded) return;
  if (res.headersSent) res.destroy();
  else {
    res.statusCode = 500;
    res.end();
  }
}
