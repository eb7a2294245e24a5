import { readStreamCapped } from './body.js';
import { EVENT_STREAM_HEADERS, errorCodeForStatus, parseRetryAfter, readErrorBody } from '../../protocol/index.js';
import type { ResolvedOptions } from './options.js';
import { redactText } from './redact.js';
import { relayBody, type AnswerWatch } from './relay.js';
import { errorAnswer, type ProxyAnswer } from './responses.js';
import { upstreamPath, type Route } from './route.js';

/** Statuses whose meaning the visitor can act on; their body is rebuilt from its code and message only. */
const PASSED_ON = new Set([400, 402, 404, 429]);
const encoder = new TextEncoder();
/** One decoder for every answer: decoding without `stream` starts afresh each time. */
const decoder = new TextDecoder();
const MAX_ERROR_BODY_BYTES = 16 * 1024;
/** Largest JSON answer passed on; an answer with its sources is a few KiB. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
const MAX_MESSAGE_LENGTH = 300;

/** The service's address for each route (routes are kept by matchRoute, so each is made once). */
const upstreamUrls = new WeakMap<Route, { base: URL; url: URL }>();

type Options = Pick<ResolvedOptions, 'apiKey' | 'upstreamUrl' | 'upstreamTimeoutMs' | 'maxStreamMs' | 'maxStreamBytes' | 'log'>;

/** The service's answer as the proxy reads it, whatever carried it. */
export interface UpstreamReply {
  status: number;
  /** A header's value (repeated ones joined with `, `), `null` when absent. */
  header(name: string): string | null;
  /** Whether the answer has a body (it may still be empty). */
  hasBody: boolean;
  /** Reads the body up to `maxBytes`; past that it stops and cancels the rest. Rejects when the body fails. */
  readCapped(maxBytes: number): Promise<{ bytes: Uint8Array; complete: boolean }>;
  /** The body as a stream, decoded, for relaying. */
  stream(): ReadableStream<Uint8Array>;
}

/**
 * A POST to the service. `onCancel` is handed, at once, what stops the request
 * (before or during the answer; at once if the proxy already gave up). Rejects when
 * the service cannot be reached, or when stopped before it answers. A hook rather
 * than an `AbortSignal`: on Node the request is stopped without an `AbortController`
 * and its event target per request (docs/benchmarks.md, Proxy).
 */
export type UpstreamCall = (url: URL, init: { headers: Record<string, string>; body: string; onCancel(stop: () => void): void }) => Promise<UpstreamReply>;

/** Calls the service through a Web `fetch`, never following a redirect: one could carry the key to another host. */
export function fetchUpstream(fetchImpl: typeof fetch): UpstreamCall {
  return async (url, init) => {
    const controller = new AbortController();
    init.onCancel(() => controller.abort());
    const response = await fetchImpl(url, { method: 'POST', headers: init.headers, body: init.body, redirect: 'manual', signal: controller.signal });
    return {
      status: response.status,
      header: (name) => response.headers.get(name),
      hasBody: response.body !== null,
      readCapped: (maxBytes) => (response.body ? readStreamCapped(response.body, maxBytes) : Promise.resolve({ bytes: new Uint8Array(0), complete: true })),
      stream: () => response.body!,
    };
  };
}

/**
 * Asks the service with a request built from scratch (the key, the body's
 * type, what to accept; nothing of the visitor's), and turns its answer into
 * the visitor's: a stream passed on as it arrives, JSON as is, errors rebuilt.
 * `onStreamEnd` is called when a relayed stream ends, however it ends, or as soon as its end line is sent (then maybe twice).
 * `watch` sees a relayed stream's pieces as they go and how it ended, or a JSON answer's text (insights).
 */
export async function forward(route: Route, body: Record<string, unknown>, onVisitorLeave: ((listener: () => void) => () => void) | undefined, corsHeaders: Record<string, string>, call: UpstreamCall, options: Options, onStreamEnd?: () => void, watch?: AnswerWatch): Promise<ProxyAnswer> {
  let known = upstreamUrls.get(route);
  if (known?.base !== options.upstreamUrl) upstreamUrls.set(route, (known = { base: options.upstreamUrl, url: new URL(upstreamPath(options.upstreamUrl.pathname, route), options.upstreamUrl) }));
  const { url } = known;
  const streaming = body.streaming === true;
  const started = Date.now();
  let stopReason: 'timeout' | 'visitor-left' | undefined;
  // What stops the service's request, once the call has said how; `cancelled` if asked before.
  let stopCall: (() => void) | undefined;
  let cancelled = false;
  const cancelCall = () => {
    if (cancelled) return;
    cancelled = true;
    stopCall?.();
  };
  const abort = (reason: 'timeout' | 'visitor-left') => {
    stopReason ??= reason;
    cancelCall();
  };
  const stopWatchingVisitor = onVisitorLeave?.(() => abort('visitor-left')) ?? (() => {});
  const timer = setTimeout(() => abort('timeout'), options.upstreamTimeoutMs);
  const where = { route: route.kind, id: route.id };

  let upstream: UpstreamReply;
  try {
    upstream = await call(url, {
      headers: {
        Authorization: `Bearer ${options.apiKey}`,
        'Content-Type': 'application/json',
        Accept: streaming ? 'text/event-stream, application/json' : 'application/json',
      },
      body: JSON.stringify(body),
      onCancel: (stop) => {
        if (cancelled) stop();
        else stopCall = stop;
      },
    });
  } catch (error) {
    clearTimeout(timer);
    stopWatchingVisitor();
    if (stopReason === 'visitor-left') {
      options.log('info', 'visitor left before the service answered', where);
      return errorAnswer(499, 'The request was cancelled.', corsHeaders, 'CANCELLED');
    }
    if (stopReason === 'timeout') {
      options.log('error', `the service did not answer within ${options.upstreamTimeoutMs} ms`, where);
      return errorAnswer(504, 'The knowledge service took too long to answer. Please try again.', corsHeaders);
    }
    options.log('error', 'cannot reach the service', { ...where, error });
    return errorAnswer(502, 'The knowledge service cannot be reached right now. Please try again later.', corsHeaders);
  }

  const status = upstream.status;
  if (status === 200 || status === 201) {
    const contentType = upstream.header('content-type') ?? '';
    const eventStream = contentType.toLowerCase().startsWith('text/event-stream');
    if (!eventStream && upstream.hasBody) return answerWhole(upstream, contentType, { where, status, started, corsHeaders, options, watch, finish: () => {
      clearTimeout(timer);
      stopWatchingVisitor();
      return stopReason;
    } });
    // From here the relay's own wait-per-piece applies.
    clearTimeout(timer);
    if (!upstream.hasBody) {
      stopWatchingVisitor();
      options.log('error', 'the service answered without a body', { ...where, status });
      return errorAnswer(502, 'The knowledge service sent an empty answer. Please try again.', corsHeaders);
    }
    // Only these headers reach the visitor. Content-Encoding and Content-Length
    // are never copied: the runtime has already decoded the body.
    const headers: Record<string, string> = { 'Content-Type': EVENT_STREAM_HEADERS['Content-Type']!, 'Cache-Control': EVENT_STREAM_HEADERS['Cache-Control']!, 'X-Accel-Buffering': 'no', 'X-Content-Type-Options': 'nosniff' };
    const relayed = relayBody(upstream.stream(), {
      apiKey: options.apiKey,
      idleTimeoutMs: options.upstreamTimeoutMs,
      maxDurationMs: options.maxStreamMs,
      maxBytes: options.maxStreamBytes,
      abortUpstream: cancelCall,
      // A visitor session's one stream is over once its end line is sent: its next question may come before the service closes.
      onAnswered: onStreamEnd,
      watch,
      onEnd: (outcome) => {
        stopWatchingVisitor();
        onStreamEnd?.();
        const fields = { route: route.kind, id: route.id, status, ms: Date.now() - started, streaming: true };
        if (outcome.kind === 'complete') options.log('info', 'answered', fields);
        else if (outcome.kind === 'visitor-left') options.log('info', 'visitor left during the answer; the service request was cancelled', fields);
        else if (outcome.kind === 'stalled') options.log('error', `the service went silent for ${options.upstreamTimeoutMs} ms during the answer`, fields);
        else if (outcome.kind === 'ended-early') options.log('warn', 'the service closed the stream before [DONE]', fields);
        else if (outcome.kind === 'too-long') options.log('warn', `the answer ran past ${options.maxStreamMs} ms (maxStreamMs); ended with [ERROR]STREAM_TOO_LONG and the service request was cancelled`, fields);
        else if (outcome.kind === 'too-large') options.log('warn', `the answer grew past ${options.maxStreamBytes} bytes (maxStreamBytes); ended with [ERROR]STREAM_TOO_LARGE and the service request was cancelled`, fields);
        else options.log('error', 'the service failed during the answer', { ...fields, error: outcome.error });
      },
    });
    return { status, headers: withCors(headers, corsHeaders), body: relayed };
  }

  // The timer still runs, so a service that never finishes its error body cannot hold the visitor.
  const detail = await readErrorDetail(upstream, options.apiKey);
  clearTimeout(timer);
  stopWatchingVisitor();
  if (PASSED_ON.has(status)) {
    options.log('info', `the service answered ${status}`, { ...where, status, detail: detail.message });
    const headers: Record<string, string> = { ...corsHeaders };
    const retryAfter = parseRetryAfter(upstream.header('retry-after'));
    if (status === 429) headers['Retry-After'] = String(Math.max(1, retryAfter ?? 60));
    return errorAnswer(status, detail.message ?? defaultMessage(status), headers, detail.code ?? errorCodeForStatus(status));
  }
  // 401/403 mean the proxy's key or setup is wrong; 5xx and the rest are the service's trouble. Neither is the visitor's business.
  const level = status === 401 || status === 403 ? 'error' : 'warn';
  const why = status >= 300 && status < 400 ? 'the service redirected; redirects are refused' : status === 401 ? 'the service refused the API key (401): check KAGENT_API_KEY' : status === 403 ? 'the service refused access (403): check the key\'s permissions and the agent ids' : `the service answered ${status}`;
  options.log(level, why, { ...where, status, detail: detail.message });
  return errorAnswer(502, 'The knowledge service is unavailable right now. Please try again later.', corsHeaders);
}

interface WholeAnswer {
  where: Record<string, string>;
  status: number;
  started: number;
  corsHeaders: Record<string, string>;
  options: Options;
  watch: AnswerWatch | undefined;
  /** Stops the timer and the visitor watch; says why the request was stopped, if it was. */
  finish: () => 'timeout' | 'visitor-left' | undefined;
}

/**
 * A JSON answer is read whole (bounded; the request's timeout still runs and
 * the visitor can still cancel it), cleaned of the key, and sent with its
 * length: no page can use half a JSON document, and a fixed body costs the
 * server far less than a relayed stream.
 */
async function answerWhole(upstream: UpstreamReply, contentType: string, { where, status, started, corsHeaders, options, watch, finish }: WholeAnswer): Promise<ProxyAnswer> {
  let read: { text: string; bytes: Uint8Array; complete: boolean };
  try {
    read = await readTextCapped(upstream, MAX_ANSWER_BYTES);
  } catch (error) {
    const stopped = finish();
    if (stopped === 'visitor-left') {
      options.log('info', 'visitor left during the answer; the service request was cancelled', { ...where, status });
      return errorAnswer(499, 'The request was cancelled.', corsHeaders, 'CANCELLED');
    }
    if (stopped === 'timeout') {
      options.log('error', `the service did not finish its answer within ${options.upstreamTimeoutMs} ms`, { ...where, status });
      return errorAnswer(504, 'The knowledge service took too long to answer. Please try again.', corsHeaders);
    }
    options.log('error', 'the service failed during the answer', { ...where, status, error });
    return errorAnswer(502, 'The knowledge service failed while answering. Please try again.', corsHeaders);
  }
  finish();
  if (!read.complete) {
    options.log('error', `the service's answer is larger than ${MAX_ANSWER_BYTES} bytes; refused`, { ...where, status });
    return errorAnswer(502, 'The knowledge service sent an answer too large to pass on.', corsHeaders);
  }
  if (read.text === '') {
    options.log('error', 'the service answered without a body', { ...where, status });
    return errorAnswer(502, 'The knowledge service sent an empty answer. Please try again.', corsHeaders);
  }
  // Fields written out rather than spread from `where`: a spread of objects of many shapes takes V8's slow path (about 2 µs).
  options.log('info', 'answered', { route: where.route, id: where.id, status, ms: Date.now() - started, streaming: false });
  // The service's own bytes go on as they came, unless the key has to be cut out of them:
  // encoding the text again would cost a copy per answer for nothing.
  const redacted = redactText(read.text, options.apiKey);
  const bytes = redacted === read.text ? read.bytes : encoder.encode(redacted);
  // The text already read is what insights records from: the answer is not decoded again.
  watch?.text(redacted);
  // Only these headers reach the visitor: none of the service's, and no Content-Encoding of a body already decoded.
  return {
    status,
    // The length lets a Node server send the body in one piece rather than chunked.
    headers: withCors({ 'Content-Type': contentType || 'application/json', 'Content-Length': String(bytes.byteLength), 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' }, corsHeaders),
    body: bytes,
  };
}

/** `headers` with the CORS headers added, without the spread's slow path (see `answerWhole`'s log line). */
function withCors(headers: Record<string, string>, cors: Record<string, string>): Record<string, string> {
  for (const name in cors) headers[name] = cors[name]!;
  return headers;
}

function defaultMessage(status: number): string {
  if (status === 402) return 'The usage limit has been reached.';
  if (status === 404) return 'Not found.';
  if (status === 429) return 'Too many requests. Please wait and try again.';
  return 'The request was refused.';
}

/** The code and message of an error body, read bounded, cleaned of control characters and the key, shortened. */
async function readErrorDetail(response: UpstreamReply, apiKey: string): Promise<{ code: string | undefined; message: string | undefined }> {
  let text = '';
  try {
    text = (await readTextCapped(response, MAX_ERROR_BODY_BYTES)).text;
  } catch {
    return { code: undefined, message: undefined };
  }
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: a plain text message, or an HTML error page that is no use to a visitor.
    if (/^\s*</.test(text)) parsed = '';
  }
  const { code, message } = readErrorBody(parsed);
  const clean = (value: string | undefined, max: number) => {
    if (value === undefined) return undefined;
    const cleaned = redactText(value, apiKey).replace(/[\x00-\x1f\x7f\s]+/g, ' ').trim();
    if (!cleaned) return undefined;
    return cleaned.length > max ? `${cleaned.slice(0, max - 1)}…` : cleaned;
  };
  const safeCode = code && /^[A-Z0-9_]{1,64}$/.test(code) ? code : undefined;
  return { code: safeCode, message: clean(message, MAX_MESSAGE_LENGTH) };
}

async function readTextCapped(response: UpstreamReply, maxBytes: number): Promise<{ text: string; bytes: Uint8Array; complete: boolean }> {
  if (!response.hasBody) return { text: '', bytes: new Uint8Array(0), complete: true };
  const { bytes, complete } = await response.readCapped(maxBytes);
  return { text: decoder.decode(bytes), bytes, complete };
}
