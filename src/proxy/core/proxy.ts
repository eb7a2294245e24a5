import { isJsonContentType, buildUpstreamBody, parseJsonObject, readBodyCapped } from './body.js';
import { clientAddress } from './client-address.js';
import { resolveOptions, type ProxyOptions, type ResolvedOptions } from './options.js';
import type { Log } from './log.js';
import { checkOrigin, corsHeaders, preflightHeaders } from './origin.js';
import { checkRateLimits, type LimitCheck } from './rate-limit.js';
import { errorAnswer, internalErrorAnswer, type ProxyAnswer } from './responses.js';
import { matchRoute } from './route.js';
import { fetchUpstream, forward, type UpstreamCall } from './upstream.js';

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
 * runtime's request and response objects: the one door through which the
 * Web handler (web.ts), the Node server and the platform entries serve it.
 */
export interface ProxyCore {
  /** Checks the visitor's request and answers it, asking the service if it passes. Never throws. */
  answer(visitor: VisitorRequest): Promise<ProxyAnswer>;
  /** The operator's log, the key redacted from every entry: for what the runtime's own side sees go wrong. */
  log: Log;
}

/**
 * Makes the core from the options. Throws `ProxyConfigError` at once when an
 * option is missing or wrong. `call` asks the service; by default through
 * the options' `fetch` (the Node server gives undici's, without Web objects).
 */
export function createProxyCore(options: ProxyOptions, call?: UpstreamCall): ProxyCore {
  const resolved = resolveOptions(options);
  let warnedNoAddress = false;
  const noAddress = () => {
    if (warnedNoAddress) return;
    warnedNoAddress = true;
    resolved.log('warn', 'no client address is known for requests (set trustedProxyHops, or use a platform adapter); the per-address limit is shared by all of them');
  };
  const upstream = call ?? fetchUpstream(resolved.fetch);
  return {
    log: resolved.log,
    async answer(visitor) {
      try {
        return await handle(visitor, upstream, resolved, noAddress);
      } catch (error) {
        resolved.log('error', 'unexpected failure', { error });
        return internalErrorAnswer();
      }
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
