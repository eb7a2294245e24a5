import { isJsonContentType, buildUpstreamBody, parseJsonObject, readBodyCapped } from './body.js';
import { clientAddress } from './client-address.js';
import { resolveOptions, type ProxyOptions, type ResolvedOptions } from './options.js';
import type { Log } from './log.js';
import { featuresAnswer } from './features.js';
import { checkOrigin, corsHeaders, preflightHeaders } from './origin.js';
import { checkRateLimits, type LimitCheck } from './rate-limit.js';
import { errorAnswer, internalErrorAnswer, jsonAnswer, type ProxyAnswer } from './responses.js';
import { Sessions, isRefusal, verifyTurnstile, type SessionRefusal, type TurnstileVerdict } from './sessions/index.js';
import { QUESTIONS_LEFT_HEADER, SESSION_ERROR_CODES, SESSION_HEADER } from '../../protocol/index.js';
import { matchRoute, type SessionRoute } from './route.js';
import { Insights, feedbackAnswer, insightsAnswer, type InsightsStore, type QuestionRecording } from './insights/index.js';
import { fetchUpstream, forward, type UpstreamCall } from './upstream.js';
import { StoreFullError } from '../stores/store.js';

/**
 * A visitor's request as plain values, whatever the transport: the Web
 * handler reads them from a `Request`, the Node entry from node:http.
 */
export interface VisitorRequest {
  method: string;
  /** The URL's path, as `new URL(url).pathname` gives it. */
  pathname: string;
  /** The URL's query (`?format=html`), `''` when none: asked for by the operator's routes only, so worked out on demand. */
  search?(): string;
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
  /**
   * Where the runtime stops a request's work once its response is sent (Cloudflare Workers, Vercel and Netlify
   * at the edge): hands it work to finish after (insights' record of the answer). Absent where the process lives on.
   */
  waitUntil?: ((work: Promise<unknown>) => void) | undefined;
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
  // The store reports what would make it refuse or forget counts (full, evicting, restarted empty) in the proxy's log.
  resolved.store.watch?.(resolved.log);
  let warnedNoAddress = false;
  const noAddress = () => {
    if (warnedNoAddress) return;
    warnedNoAddress = true;
    resolved.log('warn', 'no client address is known for requests (set trustedProxyHops, or use a platform adapter); the per-address limit is shared by all of them');
  };
  const context: Context = {
    call: call ?? fetchUpstream(resolved.fetch),
    options: resolved,
    noAddress,
    sessions: resolved.sessions && new Sessions(resolved.sessions, resolved.store),
    // resolveOptions made sure the store has the list methods insights need.
    insights: resolved.insights && new Insights(resolved.insights, resolved.store as RateLimitStoreWithLists, resolved.log),
  };
  return {
    log: resolved.log,
    async answer(visitor) {
      try {
        return await handle(visitor, context);
      } catch (error) {
        resolved.log('error', 'unexpected failure', { error });
        return internalErrorAnswer();
      }
    },
  };
}

/** What every request of one proxy shares. */
interface Context {
  call: UpstreamCall;
  options: ResolvedOptions;
  noAddress: () => void;
  sessions: Sessions | undefined;
  insights: Insights | undefined;
}

type RateLimitStoreWithLists = ResolvedOptions['store'] & InsightsStore;

const SESSION_HEADER_NAME = SESSION_HEADER.toLowerCase();

async function handle(request: VisitorRequest, context: Context): Promise<ProxyAnswer> {
  const { options, sessions } = context;
  const { log } = options;
  const { pathname } = request;
  const match = matchRoute(request.method, pathname, options);
  const origin = checkOrigin(request.header('origin'), options);
  if (!match.ok) {
    log('info', match.status === 405 ? 'refused: method not allowed' : 'refused: no such route', { status: match.status, method: request.method, path: pathname.slice(0, 200) });
    // A page the operator allows gets a refusal it can read, so its visitor sees
    // "not found" rather than a failed network request; nothing goes upstream.
    const readable = origin.allowed && origin.allowOrigin !== undefined;
    if (readable && request.method === 'OPTIONS') return { status: 204, headers: preflightHeaders(origin.allowOrigin, sessions !== undefined), body: null };
    const cors = readable ? corsHeaders(origin.allowOrigin) : {};
    return match.status === 405
      ? errorAnswer(405, 'Only POST is allowed here.', { ...cors, Allow: 'POST, OPTIONS' })
      : errorAnswer(404, 'Not found.', cors);
  }
  const { route } = match;
  if (route.kind === 'features') return featuresAnswer(request.method, request.header('origin'), origin, options);
  // The operator's report: no CORS, whatever the origin, so no page can read it.
  if (route.kind === 'insights') return insightsAnswer(request.method, request.header('authorization'), request.search?.() ?? '', context.insights!, log);
  const where = { route: route.kind, id: route.id };

  if (!origin.allowed) {
    log('info', `refused: ${origin.reason}`, { ...where, status: 403, origin: request.header('origin')?.slice(0, 200) });
    return errorAnswer(403, 'This site may not use this service.', { Vary: 'Origin' });
  }
  if (match.preflight) return { status: 204, headers: preflightHeaders(origin.allowOrigin, sessions !== undefined), body: null };
  const cors = corsHeaders(origin.allowOrigin);

  if (!isJsonContentType(request.header('content-type'))) {
    log('info', 'refused: body is not JSON', { ...where, status: 415 });
    return errorAnswer(415, 'Send the question as JSON (Content-Type: application/json).', cors);
  }

  const address = clientAddress(request.header, request.clientAddress, options.trustedProxyHops);
  if (address === undefined && options.perAddressLimit) context.noAddress();
  // Awaited only when a limit applies (checkRateLimits gives nothing to await otherwise).
  const addressCheck = checkRateLimits(options, { address: address ?? 'unknown' });
  const byAddress = addressCheck && (await addressCheck);
  if (byAddress) return limitAnswer(byAddress, cors, where, log);

  // A session's page is the page its Origin names; a request without one (server-side, when allowed) is ''.
  const pageOrigin = sessions ? (request.header('origin') ?? '') : '';
  if (route.kind === 'session') return sessionRequest(route, request, { address: address ?? 'unknown', pageOrigin, cors, where }, sessions!, options);

  // The token is checked before the body is read: a query without a valid one costs nothing more.
  let session: { sid: string } | undefined;
  if (sessions) {
    const checked = await storeCall(() => sessions.checkToken(request.header(SESSION_HEADER_NAME), pageOrigin));
    if (!checked.ok) return sessionRefusal(checked, cors, where, log);
    session = checked;
  }
  // Insights tell visitors apart by their session, else their address; only a keyed hash of it is kept.
  const visitor = session ? `session:${session.sid}` : `address:${address ?? 'unknown'}`;

  const read = await readBodyCapped(request.header('content-length'), request.readBody, options.maxBodyBytes);
  if (!read.ok) return bodyProblem(read.problem, cors, where, log);
  const parsed = parseJsonObject(read.bytes);
  if (!parsed.ok) return bodyProblem(parsed.problem, cors, where, log);
  if (route.kind === 'feedback') {
    const limited = await storeCall(() => feedbackLimit(options, visitor));
    if (limited) return sessionRefusal(limited, cors, where, log);
    return feedbackAnswer(parsed.value, visitor, context.insights!, cors, log);
  }
  const built = buildUpstreamBody(parsed.value, route, options);
  if (!built.ok) return bodyProblem(built.problem, cors, where, log);

  // From here the question is recorded (insights on), however it ends.
  const recording = context.insights?.start(route.id, String(built.body.query), visitor, request.waitUntil);
  const recorded = recording ? (answer: ProxyAnswer) => recording.answered(answer) : (answer: ProxyAnswer) => answer;

  // A session holds one answer at a time, and counts its questions whatever visitorId the body names.
  let hold: { release: () => void } | undefined;
  let questionsLeft: number | undefined;
  if (session) {
    const held = await storeCall(() => sessions!.hold(session.sid, options.upstreamTimeoutMs + options.maxStreamMs));
    if (!held.ok) return recorded(sessionRefusal(held, cors, where, log));
    hold = held;
    const counted = await storeCall(() => sessions!.countQuestion(session.sid));
    if (!counted.ok) {
      hold.release();
      return recorded(sessionRefusal(counted, cors, where, log));
    }
    questionsLeft = counted.left;
  }

  const visitorId = typeof built.body.visitorId === 'string' ? built.body.visitorId : undefined;
  const visitorCheck = checkRateLimits(options, { visitorId, budget: true });
  const byVisitor = visitorCheck && (await visitorCheck);
  if (byVisitor) {
    hold?.release();
    return recorded(limitAnswer(byVisitor, cors, where, log));
  }

  if (!session) return recorded(await forward(route, built.body, request.onLeave, cors, context.call, options, undefined, recording));
  const answer = await forward(route, built.body, request.onLeave, cors, context.call, options, hold!.release, recording);
  // A relayed stream lets go of the hold when it ends; any other answer is whole already.
  if (!(answer.body instanceof ReadableStream)) hold!.release();
  if (questionsLeft !== undefined) answer.headers[QUESTIONS_LEFT_HEADER] = String(questionsLeft);
  return recorded(answer);
}

/** Feedback a visitor may send a minute: enough to change their mind on every answer, not to flood the store. */
const FEEDBACK_PER_MINUTE = 30;

/** A refusal when the visitor sent too much feedback this minute. */
async function feedbackLimit(options: ResolvedOptions, visitor: string): Promise<SessionRefusal | undefined> {
  const { count, resetInMs } = await options.store.hit(`feedback:${visitor}`, 60_000);
  if (count <= FEEDBACK_PER_MINUTE) return undefined;
  return { ok: false, status: 429, code: 'RATE_LIMITED', message: 'Too much feedback at once. Please wait a moment.', retryAfterSeconds: Math.max(1, Math.ceil(resetInMs / 1000)) };
}

interface SessionCall {
  address: string;
  pageOrigin: string;
  cors: Record<string, string>;
  where: Record<string, string>;
}

/** `POST /sessions/challenge` and `POST /sessions`: a new challenge, or a solved one turned into a session. */
async function sessionRequest(route: SessionRoute, request: VisitorRequest, { address, pageOrigin, cors, where }: SessionCall, sessions: Sessions, options: ResolvedOptions): Promise<ProxyAnswer> {
  const { log } = options;
  const read = await readBodyCapped(request.header('content-length'), request.readBody, options.maxBodyBytes);
  if (!read.ok) return bodyProblem(read.problem, cors, where, log);
  const parsed = parseJsonObject(read.bytes);
  if (!parsed.ok) return bodyProblem(parsed.problem, cors, where, log);

  if (route.id === 'challenge') {
    const answer = await storeCall(() => sessions.challenge(pageOrigin));
    if (isRefusal(answer)) return sessionRefusal(answer, cors, where, log);
    return jsonAnswer(200, options.turnstile ? { ...answer, humanCheck: 'turnstile', turnstileSiteKey: options.turnstile.siteKey } : answer, cors);
  }

  // Spends the challenge before its costly part: each challenge buys one check of its work at most.
  const checked = await storeCall(() => sessions.checkSolution(parsed.value, pageOrigin));
  if (!checked.ok) return sessionRefusal(checked, cors, where, log);
  if (options.turnstile) {
    const token = checked.request.turnstileToken;
    // An IPv6 visitor is counted by its /64, which is no address to tell Cloudflare.
    const remoteIp = address === 'unknown' || address.includes('/') ? undefined : address;
    const verdict: TurnstileVerdict = token
      ? await verifyTurnstile({ ...options.turnstile, token, remoteIp, hostnames: turnstileHostnames(options, pageOrigin), fetch: options.fetch, timeoutMs: TURNSTILE_TIMEOUT_MS })
      : { ok: false, unavailable: false, reason: 'no turnstileToken in the request' };
    if (!verdict.ok) {
      log(verdict.unavailable ? 'error' : 'info', `refused a session: the human check ${verdict.unavailable ? 'could not be asked' : 'failed'} (${verdict.reason})`, { ...where, status: verdict.unavailable ? 503 : 403 });
      return verdict.unavailable
        ? errorAnswer(503, 'The human check cannot be done right now. Please try again shortly.', { ...cors, 'Retry-After': '5' }, SESSION_ERROR_CODES.humanCheckUnavailable)
        : errorAnswer(403, 'The human check did not pass. Please try it again.', cors, SESSION_ERROR_CODES.humanCheckFailed);
    }
  }
  const minted = await storeCall(() => sessions.countMint(address));
  if (minted) return sessionRefusal(minted, cors, where, log);
  const grant = await sessions.grant(pageOrigin);
  log('info', 'session started', { ...where, status: 201 });
  return jsonAnswer(201, grant, cors);
}

const TURNSTILE_TIMEOUT_MS = 5000;

/** The hostnames a Turnstile pass may come from: the allowed origins', or the page's own when any origin is allowed. */
function turnstileHostnames(options: ResolvedOptions, pageOrigin: string): Set<string> {
  const origins = options.allowedOrigins === '*' ? [pageOrigin] : [...options.allowedOrigins];
  const hostnames = new Set<string>();
  for (const origin of origins) {
    try {
      hostnames.add(new URL(origin).hostname);
    } catch {
      // No Origin: no hostname to accept.
    }
  }
  return hostnames;
}

/** A store call whose failure (Redis out of reach) refuses with 503 rather than letting the request through unchecked. */
async function storeCall<T>(run: () => Promise<T>): Promise<T | SessionRefusal> {
  try {
    return await run();
  } catch (error) {
    return { ok: false, status: 503, code: 'UNAVAILABLE', message: 'The service is busy. Please try again shortly.', retryAfterSeconds: 5, error };
  }
}

function sessionRefusal(refusal: SessionRefusal, cors: Record<string, string>, where: Record<string, string>, log: ResolvedOptions['log']): ProxyAnswer {
  // A full store says so itself, once a minute with its count.
  if (refusal.error instanceof StoreFullError) log('info', 'refused: the rate-limit store is full', { ...where, status: 503 });
  else if (refusal.error !== undefined) log('error', 'sessions cannot be checked; refusing rather than letting requests through unchecked', { ...where, status: 503, error: refusal.error });
  else log('info', `refused: ${refusal.message}`, { ...where, status: refusal.status, code: refusal.code });
  const headers = refusal.retryAfterSeconds === undefined ? cors : { ...cors, 'Retry-After': String(refusal.retryAfterSeconds) };
  return errorAnswer(refusal.status, refusal.message, headers, refusal.code);
}

function bodyProblem(problem: { status: number; message: string }, cors: Record<string, string>, where: Record<string, string>, log: ResolvedOptions['log']): ProxyAnswer {
  log('info', `refused: ${problem.message}`, { ...where, status: problem.status });
  return errorAnswer(problem.status, problem.message, cors);
}

function limitAnswer(check: LimitCheck, cors: Record<string, string>, where: Record<string, string>, log: ResolvedOptions['log']): ProxyAnswer {
  if (check.kind === 'unavailable') {
    if (check.error instanceof StoreFullError) log('info', 'refused: the rate-limit store is full', { ...where, status: 503 });
    else log('error', 'rate limits cannot be checked; refusing rather than letting requests through unchecked', { ...where, status: 503, error: check.error });
    return errorAnswer(503, 'The service is busy. Please try again shortly.', { ...cors, 'Retry-After': '5' });
  }
  log('info', `refused: ${check.message}`, { ...where, status: 429, limit: check.limit, retryAfter: check.retryAfterSeconds });
  // The site's budget has a code of its own, so a page can say plainly that today's questions are spent.
  return errorAnswer(429, check.message, { ...cors, 'Retry-After': String(check.retryAfterSeconds) }, check.limit === 'daily-budget' ? SESSION_ERROR_CODES.budgetSpent : undefined);
}
