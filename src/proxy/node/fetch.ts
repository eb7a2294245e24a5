// Node: a `fetch` for the proxy's upstream calls built on node:http, which
// costs about a third of the CPU of Node's built-in fetch (undici) per request
// (docs/benchmarks.md, Proxy). It covers exactly what the proxy asks for and
// hands anything else to the global fetch. For a Web handler mounted in a
// framework; `serveProxy` made from options calls the service through undici
// without Web objects instead (upstream-call.ts).
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { answerDecoder } from './decoder.js';

export interface NodeFetchOptions {
  /** Most connections open to the service at once; each held stream takes one. Default: no limit, as Node's fetch. */
  maxSockets?: number;
  /** How long an unused connection stays open, in ms. Default: 4000 (under Node's server default of 5 s). */
  keepAliveMs?: number;
}

/**
 * A Web-compatible `fetch` for requests with a string or byte body (or none)
 * and `redirect: 'manual'`: the response's body is decoded as fetch does
 * (gzip, deflate, br) and `signal` aborts the request, before or during the
 * answer. Redirects are never followed. Any other request goes to the global fetch.
 */
export function createNodeFetch({ maxSockets = Infinity, keepAliveMs = 4000 }: NodeFetchOptions = {}): typeof fetch {
  const agents = {
    'http:': new HttpAgent({ keepAlive: true, keepAliveMsecs: keepAliveMs, maxSockets, scheduling: 'lifo', timeout: keepAliveMs }),
    'https:': new HttpsAgent({ keepAlive: true, keepAliveMsecs: keepAliveMs, maxSockets, scheduling: 'lifo', timeout: keepAliveMs }),
  };
  const nodeFetch: typeof fetch = (input, init = {}) => {
    const body = init.body;
    const simple = !(input instanceof Request) && init.redirect === 'manual' && (body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array);
    const url = simple ? new URL(String(input)) : undefined;
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return globalThis.fetch(input, init);
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    const method = init.method ?? 'GET';
    const signal = init.signal ?? undefined;
    if (signal?.aborted) return Promise.reject(abortError(signal));
    const watch: Watch | undefined = signal
      ? (stop) => {
          const onAbort = () => stop(abortError(signal));
          signal.addEventListener('abort', onAbort, { once: true });
          return () => signal.removeEventListener('abort', onAbort);
        }
      : undefined;
    return send(url, method, headers, body as string | Uint8Array | null | undefined, watch, agents[url.protocol]).then((incoming) => toResponse(incoming, method === 'HEAD'));
  };
  return nodeFetch;
}

/** Says what stops a request (with the error it fails with); gives back what stops watching. */
type Watch = (stop: (error: unknown) => void) => () => void;

/** Sends the request; resolves with the service's answer once its head is in. `headers`: lower-case names. */
function send(url: URL, method: string, headers: Record<string, string>, body: string | Uint8Array | null | undefined, watch: Watch | undefined, agent: HttpAgent): Promise<IncomingMessage> {
  // Like fetch: ask for compressed answers, and decode them below.
  headers['accept-encoding'] ??= 'gzip, deflate, br';
  if (body != null) headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);

  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, { method, headers, agent });
    let stoppedWith: { error: unknown } | undefined;
    // The request's own error handler rejects with the stop's error.
    const unwatch = watch?.((error) => {
      stoppedWith ??= { error };
      request.destroy(new DOMException('This operation was aborted', 'AbortError'));
    });
    // Kept for the request's life: a stop during the answer errors the request again (the body sees it; rejecting twice is harmless).
    request.on('error', (error) => {
      unwatch?.();
      reject(stoppedWith ? stoppedWith.error : new TypeError('fetch failed', { cause: error }));
    });
    request.once('response', (incoming: IncomingMessage) => {
      // From here a stop ends the body instead: the reader sees it fail.
      if (unwatch) incoming.once('close', unwatch);
      resolve(incoming);
    });
    request.end(body ?? undefined);
  });
}

function toResponse(incoming: IncomingMessage, head: boolean): Response {
  const status = incoming.statusCode ?? 502;
  const headers = new Headers();
  const raw = incoming.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      headers.append(raw[i]!, raw[i + 1]!);
    } catch {
      // A header value fetch would refuse is dropped, not fatal.
    }
  }
  const noBody = head || hasNoBody(status);
  if (noBody) {
    incoming.resume();
    return new Response(null, { status, statusText: incoming.statusMessage ?? '', headers });
  }
  const decoded = decode(incoming, headers.get('content-encoding'));
  return new Response(Readable.toWeb(decoded) as ReadableStream<Uint8Array>, { status, statusText: incoming.statusMessage ?? '', headers });
}

function hasNoBody(status: number): boolean {
  return status === 204 || status === 205 || status === 304 || status < 200;
}

/** The body decoded as fetch decodes it; a decoding error fails the body, and closing it closes the connection. */
function decode(incoming: IncomingMessage, encoding: string | null): Readable {
  const decoder = answerDecoder(encoding);
  if (!decoder) return incoming;
  incoming.on('error', (error) => decoder.destroy(error));
  decoder.on('close', () => incoming.destroy());
  return incoming.pipe(decoder);
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}
