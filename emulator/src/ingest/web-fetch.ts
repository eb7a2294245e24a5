import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { AddressGuard, AddressRefusedError, type AddressPolicy } from './address-guard.js';
import { IngestError, reasonOf } from './errors.js';

/** Bounds on reading from the web. */
export interface WebLimits {
  /** Most pages a site crawl returns (default 100); it makes at most twice as many requests. */
  maxPages: number;
  /** How many links away from the start page a crawl follows (default 3; the start page is 0). */
  maxDepth: number;
  /** Most bytes read of one page or sitemap (default 5 MB); the rest of a longer page is not read. */
  maxBytes: number;
  /** Longest wait for one page, headers and body together (default 15 s). */
  timeoutMs: number;
  /** Most bytes a whole crawl reads (default 100 MB). */
  maxTotalBytes?: number;
  /** Longest a whole crawl runs (default 5 minutes). */
  maxTotalMs?: number;
  /** Pages fetched at the same time during a crawl (default 4). */
  concurrency?: number;
  /** Stops the fetch or crawl when aborted. */
  signal?: AbortSignal;
  /**
   * Private, loopback, link-local and metadata addresses are refused (default); `true` allows
   * them all, a list allows those addresses or subnets only (`10.1.2.0/24`).
   */
  allowPrivateAddresses?: AddressPolicy['allowPrivateAddresses'];
  /** How host names are resolved (default `dns.lookup`); the address check applies to the result. */
  resolve?: AddressPolicy['resolve'];
}

export const DEFAULT_WEB_LIMITS: Required<Omit<WebLimits, 'signal' | 'allowPrivateAddresses' | 'resolve'>> = {
  maxPages: 100,
  maxDepth: 3,
  maxBytes: 5 * 1024 * 1024,
  timeoutMs: 15_000,
  maxTotalBytes: 100 * 1024 * 1024,
  maxTotalMs: 5 * 60_000,
  concurrency: 4,
};

export const USER_AGENT = 'kagent-emulator (knowledge-agent ingestion; +https://www.npmjs.com/package/kagent-chat)';

/** How `fetchBounded` may read one address. */
export interface FetchLimits extends AddressPolicy {
  maxBytes: number;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  accept: string;
  /** Asked before following a redirect to `url`: a reason to refuse it, or `undefined` to follow. */
  checkRedirect?: ((url: URL) => string | undefined) | undefined;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 10;

/** What was read from one address. */
export interface FetchedResource {
  /** The address after redirects. */
  url: string;
  /** The media type without parameters, lower case ("" when the server sent none). */
  mediaType: string;
  /** The `charset` parameter of the content type, when given. */
  charset?: string;
  bytes: Uint8Array;
  /** The body was longer than `maxBytes` and only its start was read. */
  truncated: boolean;
}

/** `url` as one page's address: without #fragment and without an empty "?" (the same request on the wire). */
export function pageAddress(url: URL | string): string {
  const address = new URL(url);
  address.hash = '';
  if (!address.search) address.search = '';
  return address.href;
}

/** A parsed http(s) address, or an `IngestError` saying why `address` is not one. */
export function parseWebAddress(address: string): URL {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new IngestError(`not a web address: ${JSON.stringify(address)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new IngestError(`only http and https addresses can be read, not ${url.protocol} (${address})`);
  }
  return url;
}

/**
 * GETs `url` and reads at most `maxBytes` of its body within `timeoutMs` (headers and body
 * together). Network failures, timeouts and non-2xx answers become `IngestError`s.
 */
export async function fetchBounded(url: URL, limits: FetchLimits): Promise<FetchedResource> {
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const signal = limits.signal ? AbortSignal.any([limits.signal, timeout]) : timeout;
  let response: Response;
  let current = url;
  const guard = new AddressGuard(limits);
  // Redirects are followed here, one hop at a time, so every hop's address can be checked before it is visited.
  for (let hops = 0; ; hops++) {
    try {
      response = await getOnce(current, { accept: limits.accept, 'user-agent': USER_AGENT }, signal, guard);
    } catch (error) {
      throw new IngestError(failureReason(current, error, limits.timeoutMs, limits.signal, timeout.aborted));
    }
    const location = REDIRECTS.has(response.status) ? response.headers.get('location') : null;
    if (location === null) break;
    await response.body?.cancel().catch(() => {});
    if (hops >= MAX_REDIRECTS) throw new IngestError(`${url.href} redirects more than ${MAX_REDIRECTS} times`);
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      throw new IngestError(`${current.href} redirects to a bad address: ${JSON.stringify(location)}`);
    }
    if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new IngestError(`${current.href} redirects to a non-http(s) address (${next.protocol})`);
    const refusal = limits.checkRedirect?.(next);
    if (refusal) throw new IngestError(refusal);
    current = next;
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new IngestError(`${current.href} answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
  }
  const contentType = response.headers.get('content-type') ?? '';
  const [mediaType = '', ...parameters] = contentType.split(';').map((part) => part.trim());
  const charset = parameters.find((parameter) => /^charset=/i.test(parameter))?.slice(8).replace(/^["']|["']$/g, '');
  try {
    const { bytes, truncated } = await readAtMost(response, limits.maxBytes);
    return { url: pageAddress(current), mediaType: mediaType.toLowerCase(), ...(charset ? { charset } : {}), bytes, truncated };
  } catch (error) {
    throw new IngestError(failureReason(current, error, limits.timeoutMs, limits.signal, timeout.aborted));
  }
}

/**
 * One GET without following redirects, through node:http so that the connection goes to the
 * address the guard checked (fetch offers no hook between resolving and connecting). No
 * Accept-Encoding is sent, so bodies come unencoded and `maxBytes` counts what is kept.
 */
function getOnce(url: URL, headers: Record<string, string>, signal: AbortSignal, guard: AddressGuard): Promise<Response> {
  guard.checkLiteral(url.hostname);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    // agent: false, a connection of its own: a pooled keep-alive socket would skip the lookup, and so the check.
    const request = send(url, { method: 'GET', headers, signal, agent: false, lookup: guard.lookup as never }, (incoming: IncomingMessage) => {
      const status = incoming.statusCode ?? 502;
      const responseHeaders = new Headers();
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (value === undefined) continue;
        for (const one of Array.isArray(value) ? value : [value]) responseHeaders.append(name, one);
      }
      const hasBody = status >= 200 && status !== 204 && status !== 304;
      if (!hasBody) incoming.resume();
      const body = hasBody ? (Readable.toWeb(incoming) as ReadableStream<Uint8Array>) : null;
      try {
        resolve(new Response(body, { status: status < 200 || status > 599 ? 502 : status, statusText: incoming.statusMessage ?? '', headers: responseHeaders }));
      } catch (error) {
        incoming.destroy();
        reject(error);
      }
    });
    request.on('error', reject);
    request.end();
  });
}

// Reads the body chunk by chunk and stops at the cap, so a huge page is never held whole.
async function readAtMost(response: Response, maxBytes: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (!response.body) return { bytes: new Uint8Array(0), truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  let truncated = false;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      const room = maxBytes - length;
      if (value.byteLength >= room) {
        chunks.push(value.subarray(0, room));
        length += room;
        truncated = value.byteLength > room || !(await isAtEnd(reader));
        break;
      }
      chunks.push(value);
      length += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(length);
  let position = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, position);
    position += chunk.byteLength;
  }
  return { bytes, truncated };
}

// Whether a body that exactly filled the cap has nothing more to give.
async function isAtEnd(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<boolean> {
  const next = await reader.read();
  return next.done || next.value.byteLength === 0;
}

function failureReason(url: URL, error: unknown, timeoutMs: number, outer: AbortSignal | undefined, timedOut: boolean): string {
  const name = (error as { name?: string } | null)?.name;
  if (error instanceof AddressRefusedError) return `refused to read ${url.href}: ${error.message}`;
  if (outer?.aborted) return `reading ${url.href} was stopped`;
  // A body cut by the timeout ends as a reset connection, not as an abort: the signal tells.
  if (timedOut || name === 'TimeoutError' || name === 'AbortError') return `${url.href} did not answer within ${formatSeconds(timeoutMs)}`;
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  const code = cause?.code ?? (error as { code?: string } | null)?.code;
  if (code === 'ECONNREFUSED') return `could not reach ${url.href}: connection refused`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `could not reach ${url.href}: unknown host ${url.hostname}`;
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return `could not read ${url.href}: the connection was closed`;
  if (code === 'ECONNRESET' || code === 'EPIPE') return `could not read ${url.href}: the connection was closed`;
  return `could not read ${url.href}: ${cause?.message ?? reasonOf(error)}`;
}

function formatSeconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}
