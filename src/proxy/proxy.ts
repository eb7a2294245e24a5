import { isJsonContentType, buildUpstreamBody, parseJsonObject, readBodyCapped, readStreamCapped } from './body.js';
import { clientAddress } from './client-address.js';
import { resolveOptions, type ProxyOptions, type ResolvedOptions } from './options.js';
import { checkOrigin, corsHeaders, preflightHeaders } from './origin.js';
import { checkRateLimits, type LimitCheck } from './rate-limit.js';
import { errorAnswer, internalErrorAnswer, toResponse, type ProxyAnswer } from './responses.js';
import { matchRoute } from './route.js';
import { fetchUpstream, forward, type UpstreamCall } from './upstream.js';

/** What the runtime adapter knows about a request that the request itself does not say. */
export interface ProxyRequestContext {
  /** The visitor's address, from the platform's trusted source (the socket, `CF-Connecting-IP`, ...). */
  clientAddress?: string | undefined;
}

/** A Web-standard handler: give it a `Request`, get a `Response`. It never throws. */
export type ProxyHandler = (request: Request, context?: ProxyRequestContext) => Promise<Response>;

/**
 * A visitor's request as plain values, whatever the transport: the Web
 * handler reads them from a `Request`, the Node entry from node:http.
 */
export interface VisitorRequest {
  method: string;
  /** The URL's path, as `new URL(url).pathname` gives it. */
  pathname: string;
  /** A header's value by lower-case name, repeated ones joined with `, ` (as `Headers.get`); `null` when absent. */
  header(name: string): string | null;
  /** The visitor's address from the platform's trusted source, if known. */
  clientAddress: string | undefined;
  /** Reads the body, stopping once more than `maxBytes` have arrived (`complete: false`). */
  readBody(maxBytes: number): Promise<{ bytes: Uint8Array; complete: boolean }>;
  /**
   * Calls `listener` once if the visitor goes away (at once if already gone);
   * gives back the function that stops watching. A hook rather than an
   * `AbortSignal`: on Node the socket's own event does it, without an
   * `AbortController` and its event target per request (docs/benchmarks.md, Proxy).
   */
  onLeave(listener: () => void): () => void;
}

/**
 * The proxy's checks and forwarding on plain values, independent of any
 * runtime's request and response objects. `call` asks the service; by
 * default through the options' `fetch`. It never throws.
 */
export type ProxyCore = (visitor: VisitorRequest, call?: UpstreamCall) => Promise<ProxyAnswer>;

/** The core behind each handler made by `createProxy`, for runtime entries that serve it without Web objects. */
const cores = new WeakMap<ProxyHandler, MadeProxy>();

/** What a runtime entry may use of a handler made by `createProxy`. */
export interface MadeProxy {
  core: ProxyCore;
  /** The `fetch` given in the options, if any (the resolved options hold a wrapper of it). */
  fetch: typeof fetch | undefined;
}

/** The plain-value core of a handler made by `createProxy`; `undefined` for any other handler. */
export function proxyCoreOf(handler: ProxyHandler): MadeProxy | undefined {
  return cores.get(handler);
}

/**
 * Creates the proxy: it holds the API key and lets through only the queries a
 * site visitor may make. Throws `ProxyConfigError` at once when an option is
 * missing or wrong; the returned handler itself never throws.
 */
export function createProxy(options: ProxyOptions): ProxyHandler {
  const resolved = resolveOptions(options);
  let warnedNoAddress = false;
  const noAddress = () => {
    if (warnedNoAddress) return;
    warnedNoAddress = true;
    resolved.log('warn', 'no client address is known for requests (set trustedProxyHops, or use a platform adapter); the per-address limit is shared by all of them');
  };
  const viaFetch = fetchUpstream(resolved.fetch);
  const core: ProxyCore = async (visitor, call = viaFetch) => {
    try {
      return await handle(visitor, call, resolved, noAddress);
    } catch (error) {
      resolved.log('error', 'unexpected failure', { error });
      return internalErrorAnswer();
    }
  };
  const handler: ProxyHandler = async (request, context) => {
    let visitor: VisitorRequest;
    try {
      visitor = webVisitor(request, context);
    } catch (error) {
      resolved.log('error', 'unexpected failure', { error });
      return toResponse(internalErrorAnswer());
    }
    return toResponse(await core(visitor));
  };
  cores.set(handler, { core, fetch: options.fetch });
  return handler;
}

const noop = () => {};

function webVisitor(request: Request, context: ProxyRequestContext | undefined): VisitorRequest {
  // Only the path is read from the URL: its host comes from the visitor's Host header and decides nothing.
  return {
    method: request.method,
    pathname: new URL(request.url).pathname,
    header: (name) => request.headers.get(name),
    clientAddress: context?.clientAddress,
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

async function handle(request: VisitorRequest, call: UpstreamCall, options: ResolvedOptions, noAddress: () => void): Promise<ProxyAnswer> {
  const { log } = options;
  const { pathname } = request;
  const match = matchRoute(request.method, pathname, options);
  const origin = checkOrigin(request.header('origin'), options);
  if (!match.ok) {
    log('info', match.status === 405 ? 'refused: method not allowed' : 'refused: no such route', { status: match.status, method: request.method, path: pathname.slice(0, 200) });
    // A page the operator allows gets a refusal it can read, so its visitor sees
    // "not found" rather than a failed network request; nothing goes upstream.
    const readable = origin.allowed && origin.allowOrigin !== undefined;
    if (readable && request.method === 'OPTIONS') return { status: 204, headers: preflightHeaders(origin.allowOrigin), body: null };
    const cors = readable ? corsHeaders(origin.allowOrigin) : {};
    return match.status === 405
      ? errorAnswer(405, 'Only POST is allowed here.', { ...cors, Allow: 'POST, OPTIONS' })
      : errorAnswer(404, 'Not found.', cors);
  }
  const { route } = match;
  const where = { route: route.kind, id: route.id };

  if (!origin.allowed) {
    log('info', `refused: ${origin.reason}`, { ...where, status: 403, origin: request.header('origin')?.slice(0, 200) });
    return errorAnswer(403, 'This site may not use this service.', { Vary: 'Origin' });
  }
  if (match.preflight) return { status: 204, headers: preflightHeaders(origin.allowOrigin), body: null };
  const cors = corsHeaders(origin.allowOrigin);

  if (!isJsonContentType(request.header('content-type'))) {
    log('info', 'refused: body is not JSON', { ...where, status: 415 });
    return errorAnswer(415, 'Send the question as JSON (Content-Type: application/json).', cors);
  }

  const address = clientAddress(request.header, request.clientAddress, options.trustedProxyHops);
  if (address === undefined && options.perAddressLimit) noAddress();
  // Awaited only when a limit applies (checkRateLimits gives nothing to await otherwise).
  const addressCheck = checkRateLimits(options, { address: address ?? 'unknown' });
  const byAddress = addressCheck && (await addressCheck);
  if (byAddress) return limitAnswer(byAddress, cors, where, log);

  const read = await readBodyCapped(request.header('content-length'), request.readBody, options.maxBodyBytes);
  if (!read.ok) return bodyProblem(read.problem, cors, where, log);
  const parsed = parseJsonObject(read.bytes);
  if (!parsed.ok) return bodyProblem(parsed.problem, cors, where, log);
  const built = buildUpstreamBody(parsed.value, route, options);
  if (!built.ok) return bodyProblem(built.problem, cors, where, log);

  const visitorId = typeof built.body.visitorId === 'string' ? built.body.visitorId : undefined;
  const visitorCheck = checkRateLimits(options, { visitorId, budget: true });
  const byVisitor = visitorCheck && (await visitorCheck);
  if (byVisitor) return limitAnswer(byVisitor, cors, where, log);

  return forward(route, built.body, request.onLeave, cors, call, options);
}

function bodyProblem(problem: { status: number; message: string }, cors: Record<string, string>, where: Record<string, string>, log: ResolvedOptions['log']): ProxyAnswer {
  log('info', `refused: ${problem.message}`, { ...where, status: problem.status });
  return errorAnswer(problem.status, problem.message, cors);
}

function limitAnswer(check: LimitCheck, cors: Record<string, string>, where: Record<string, string>, log: ResolvedOptions['log']): ProxyAnswer {
  if (check.kind === 'unavailable') {
    log('error', 'rate limits cannot be checked; refusing rather than letting requests through unchecked', { ...where, status: 503, error: check.error });
    return errorAnswer(503, 'The service is busy. Please try again shortly.', { ...cors, 'Retry-After': '5' });
  }
  log('info', `refused: ${check.message}`, { ...where, status: 429, limit: check.limit, retryAfter: check.retryAfterSeconds });
  return errorAnswer(429, check.message, { ...cors, 'Retry-After': String(check.retryAfterSeconds) });
}
