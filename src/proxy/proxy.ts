import { isJsonContentType, buildUpstreamBody, parseJsonObject, readBodyCapped } from './body.js';
import { clientAddress } from './client-address.js';
import { resolveOptions, type ProxyOptions, type ResolvedOptions } from './options.js';
import { checkOrigin, corsHeaders, preflightHeaders } from './origin.js';
import { checkRateLimits, type LimitCheck } from './rate-limit.js';
import { errorResponse, internalErrorResponse } from './responses.js';
import { matchRoute } from './route.js';
import { forward } from './upstream.js';

/** What the runtime adapter knows about a request that the request itself does not say. */
export interface ProxyRequestContext {
  /** The visitor's address, from the platform's trusted source (the socket, `CF-Connecting-IP`, ...). */
  clientAddress?: string | undefined;
}

/** A Web-standard handler: give it a `Request`, get a `Response`. It never throws. */
export type ProxyHandler = (request: Request, context?: ProxyRequestContext) => Promise<Response>;

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
  return async (request, context) => {
    try {
      return await handle(request, context, resolved, noAddress);
    } catch (error) {
      resolved.log('error', 'unexpected failure', { error });
      return internalErrorResponse();
    }
  };
}

async function handle(request: Request, context: ProxyRequestContext | undefined, options: ResolvedOptions, noAddress: () => void): Promise<Response> {
  const { log } = options;
  // Only the path is read from the URL: its host comes from the visitor's Host header and decides nothing.
  const pathname = new URL(request.url).pathname;
  const match = matchRoute(request.method, pathname, options);
  const origin = checkOrigin(request.headers.get('origin'), options);
  if (!match.ok) {
    log('info', match.status === 405 ? 'refused: method not allowed' : 'refused: no such route', { status: match.status, method: request.method, path: pathname.slice(0, 200) });
    // A page the operator allows gets a refusal it can read, so its visitor sees
    // "not found" rather than a failed network request; nothing goes upstream.
    const readable = origin.allowed && origin.allowOrigin !== undefined;
    if (readable && request.method === 'OPTIONS') return new Response(null, { status: 204, headers: preflightHeaders(origin.allowOrigin) });
    const cors = readable ? corsHeaders(origin.allowOrigin) : {};
    return match.status === 405
      ? errorResponse(405, 'Only POST is allowed here.', { ...cors, Allow: 'POST, OPTIONS' })
      : errorResponse(404, 'Not found.', cors);
  }
  const { route } = match;
  const where = { route: route.kind, id: route.id };

  if (!origin.allowed) {
    log('info', `refused: ${origin.reason}`, { ...where, status: 403, origin: request.headers.get('origin')?.slice(0, 200) });
    return errorResponse(403, 'This site may not use this service.', { Vary: 'Origin' });
  }
  if (match.preflight) return new Response(null, { status: 204, headers: preflightHeaders(origin.allowOrigin) });
  const cors = corsHeaders(origin.allowOrigin);

  if (!isJsonContentType(request.headers.get('content-type'))) {
    log('info', 'refused: body is not JSON', { ...where, status: 415 });
    return errorResponse(415, 'Send the question as JSON (Content-Type: application/json).', cors);
  }

  const address = clientAddress(request.headers, context?.clientAddress, options.trustedProxyHops);
  if (address === undefined && options.perAddressLimit) noAddress();
  const byAddress = await checkRateLimits(options, { address: address ?? 'unknown' });
  if (byAddress) return limitResponse(byAddress, cors, where, log);

  const read = await readBodyCapped(request, options.maxBodyBytes);
  if (!read.ok) return bodyProblem(read.problem, cors, where, log);
  const parsed = parseJsonObject(read.bytes);
  if (!parsed.ok) return bodyProblem(parsed.problem, cors, where, log);
  const built = buildUpstreamBody(parsed.value, route, options);
  if (!built.ok) return bodyProblem(built.problem, cors, where, log);

  const visitorId = typeof built.body.visitorId === 'string' ? built.body.visitorId : undefined;
  const byVisitor = await checkRateLimits(options, { visitorId, budget: true });
  if (byVisitor) return limitResponse(byVisitor, cors, where, log);

  return forward(route, built.body, request.signal, cors, options);
}

function bodyProblem(problem: { status: number; message: string }, cors: Record<string, string>, where: Record<string, string>, log: ResolvedOptions['log']): Response {
  log('info', `refused: ${problem.message}`, { ...where, status: problem.status });
  return errorResponse(problem.status, problem.message, cors);
}

function limitResponse(check: LimitCheck, cors: Record<string, string>, where: Record<string, string>, log: ResolvedOptions['log']): Response {
  if (check.kind === 'unavailable') {
    log('error', 'rate limits cannot be checked; refusing rather than letting requests through unchecked', { ...where, status: 503, error: check.error });
    return errorResponse(503, 'The service is busy. Please try again shortly.', { ...cors, 'Retry-After': '5' });
  }
  log('info', `refused: ${check.message}`, { ...where, status: 429, limit: check.limit, retryAfter: check.retryAfterSeconds });
  return errorResponse(429, check.message, { ...cors, 'Retry-After': String(check.retryAfterSeconds) });
}
