// The proxy as a Web-standard handler: reads a `Request` into the core's plain
// values and writes its answer as a `Response`. Every entry but the Node server's
// own path serves it this way.
import { readStreamCapped } from './body.js';
import type { ProxyOptions } from './options.js';
import { createProxyCore, type ProxyCore, type VisitorRequest } from './proxy.js';
import { internalErrorAnswer, toResponse } from './responses.js';

/** What the runtime adapter knows about a request that the request itself does not say. */
export interface ProxyRequestContext {
  /** The visitor's address, from the platform's trusted source (the socket, `CF-Connecting-IP`, ...). */
  clientAddress?: string | undefined;
  /** The runtime's `waitUntil` where it stops work once the response is sent (Workers' `ctx.waitUntil`): insights' records are written through it. */
  waitUntil?: ((work: Promise<unknown>) => void) | undefined;
}

/** A Web-standard handler: give it a `Request`, get a `Response`. It never throws. */
export type ProxyHandler = (request: Request, context?: ProxyRequestContext) => Promise<Response>;

/**
 * Creates the proxy: it holds the API key and lets through only the queries a
 * site visitor may make. Throws `ProxyConfigError` at once when an option is
 * missing or wrong; the returned handler itself never throws.
 */
export function createProxy(options: ProxyOptions): ProxyHandler {
  return webHandler(createProxyCore(options));
}

/** Serves `core` as a Web handler. */
export function webHandler(core: ProxyCore): ProxyHandler {
  return async (request, context) => {
    let visitor: VisitorRequest;
    try {
      visitor = webVisitor(request, context);
    } catch (error) {
      core.log('error', 'unexpected failure', { error });
      return toResponse(internalErrorAnswer());
    }
    return toResponse(await core.answer(visitor));
  };
}

const noop = () => {};

function webVisitor(request: Request, context: ProxyRequestContext | undefined): VisitorRequest {
  // Only the path is read from the URL: its host comes from the visitor's Host header and decides nothing.
  return {
    method: request.method,
    pathname: new URL(request.url).pathname,
    search: () => new URL(request.url).search,
    header: (name) => request.headers.get(name),
    clientAddress: context?.clientAddress,
    waitUntil: context?.waitUntil,
    readBody: (maxBytes) => (request.body ? readStreamCapped(request.body, maxBytes) : Promise.resolve({ bytes: new Uint8Array(0), complete: true })),
    onLeave: (listener) => {
      const signal = request.signal;
      if (signal.aborted) {
        listener();
        return noop;
      }
      signal.addEventListener('abort', listener, { once: true });
      return () => signal.removeEventListener('abort', listener);
    },
  };
}
