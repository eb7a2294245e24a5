// Routes that browser tests reach on web-test-runner's own origin, over real HTTP.
import { bfcachePage } from './bfcache-page.js';
import { cspPage } from './csp-page.js';
import { turnstileScript } from './turnstile-script-stand-in.js';
import { koaMiddleware } from './koa-adapter.js';
import {
  HOSTILE_ANSWER,
  SAMPLE_ANSWER,
  WIDGET_ANSWER,
  answerStream,
  answerStreamEvents,
  byteChunks,
  errorLine,
  sampleStreamChunks,
  streamResponse,
} from './scripted-service.js';
import { DONE_EVENT, EVENT_STREAM_HEADERS, NO_FEATURES, answerEvent, endpointResponseEvent } from '../../src/protocol/index.js';
import { featuresOfProxy, insightsProxy, proxiedQuery, proxyLogOf, refusingProxy } from './browser-proxy.js';
import { sessionRoute } from './browser-sessions.js';
import { NAMED_ANSWERS, answerEvents } from './markdown-answers.js';
import { specExamples } from './spec-examples.js';

/** What the widget scenarios saw, per agent id (each test uses its own). */
interface AgentLog {
  posts: number;
  bodies: unknown[];
  cancelled: number;
  /** GETs of the features route (`/scripted/not-proxy/<agentId>/features`). */
  features: number;
}
const logs = new Map<string, AgentLog>();
const logOf = (agentId: string) => {
  let log = logs.get(agentId);
  if (!log) logs.set(agentId, (log = { posts: 0, bodies: [], cancelled: 0, features: 0 }));
  return log;
};

/** An error reply as the service writes one; 401 uses its plain-string shape, the rest the documented one. */
function errorReply(status: number): Response {
  const headers: Record<string, string> = status === 429 ? { 'Retry-After': '2' } : {};
  const body = status === 401 ? { error: 'Unauthorized' } : { error: { code: `E${status}`, message: `Scripted failure ${status}` } };
  return Response.json(body, { status, headers });
}

const REFUSED_IDS_ANSWER = { ...WIDGET_ANSWER, conversationId: 'conv from service', visitorId: 'someone@example.com' };

/** Streams held after their first words, per agent id, until the test releases them with a number of bytes to send. */
interface Hold {
  release: (bytes: number) => void;
  released: Promise<number>;
  /** Settles once the stream has written its end, or the client went away. */
  ended: Promise<void>;
  end: () => void;
}
const holds = new Map<string, Hold>();
const holdOf = (agentId: string): Hold => {
  let hold = holds.get(agentId);
  if (!hold) {
    let release!: (bytes: number) => void;
    let end!: () => void;
    const released = new Promise<number>((resolve) => (release = resolve));
    const ended = new Promise<void>((resolve) => (end = resolve));
    holds.set(agentId, (hold = { release, released, ended, end }));
  }
  return hold;
};

/**
 * The `held` scenario: two fragments at once ("First words, " "then more. "),
 * then nothing until `POST /scripted/widget-release/<agentId>?bytes=<n>`;
 * then <n> bytes more of answer and the end ("The end.", the final JSON,
 * [DONE]); the release is answered once all of it is written, or the
 * client went away. The test decides when the rest comes: while its page is away,
 * or after it came back; a large <n> is more than a browser keeps for a
 * page in its back/forward cache.
 */
function heldAnswer(agentId: string, log: AgentLog): Response {
  const encoder = new TextEncoder();
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (text: string) => controller.enqueue(encoder.encode(text));
      // Two fragments, told to the chat one after the other (it keeps them in storage at most once a second).
      send(answerEvent('First words, '));
      send(answerEvent('then more. '));
      const bytes = await holdOf(agentId).released;
      let answer = 'First words, then more. ';
      const filler = 'More words. '.repeat(Math.ceil(bytes / 12)).slice(0, bytes);
      for (let i = 0; i < filler.length && !cancelled; i += 16_384) send(answerEvent(filler.slice(i, i + 16_384)));
      if (cancelled) return;
      answer += filler + 'The end.';
      send(answerEvent('The end.') + endpointResponseEvent(JSON.stringify({ ...WIDGET_ANSWER, answer, sources: [] })) + DONE_EVENT);
      controller.close();
      holdOf(agentId).end();
    },
    cancel() {
      cancelled = true;
      log.cancelled++;
      holdOf(agentId).end();
    },
  });
  return new Response(body, { headers: EVENT_STREAM_HEADERS });
}

/**
 * `POST /scripted/widget/<scenario>/agents/<agentId>/query` answers as the
 * scenario says; `GET /scripted/widget-log/<agentId>` tells how many POSTs
 * came, their bodies, and how many streams the client abandoned.
 */
async function widgetScenario(scenario: string, agentId: string, request: Request): Promise<Response> {
  const log = logOf(agentId);
  log.posts++;
  const body = (await request.json().catch(() => undefined)) as { streaming?: boolean; query?: string } | undefined;
  log.bodies.push(body);
  const onCancel = () => log.cancelled++;
  // One network write per event, as the service writes them. Cuts through lines, events and characters are the
  // `answer-bytewise` scenario's, for the tests of the chat's decoding: every 5 bytes, each a write and a read, cost
  // a second of the browser's time an answer (413 reads), in every test that only needs an answer.
  const answer = (content: { answer: string } = WIDGET_ANSWER) =>
    body?.streaming === false ? Response.json(content) : streamResponse(answerStreamEvents(content), { onCancel });

  const failOnce = /^first-(\d{3})$/.exec(scenario);
  if (failOnce) return log.posts === 1 ? errorReply(Number(failOnce[1])) : answer();
  // A named markdown answer, or the question itself (`echo`), in fragments of <size> characters.
  const text = /^text-([\w-]+)-(\d+)$/.exec(scenario);
  if (text) {
    const markdown = text[1] === 'echo' ? (body?.query ?? '') : NAMED_ANSWERS[text[1]!];
    if (markdown !== undefined) return streamResponse(answerEvents(markdown, Number(text[2])), { onCancel });
  }
  const status = /^status-(\d{3})$/.exec(scenario);
  if (status) return errorReply(Number(status[1]));
  switch (scenario) {
    case 'answer':
      return answer();
    case 'answer-bytewise':
      return streamResponse(byteChunks(answerStream(WIDGET_ANSWER), 5), { onCancel });
    case 'held':
      return heldAnswer(agentId, log);
    case 'hostile':
      return answer(HOSTILE_ANSWER);
    case 'refuse-conversation-once':
      // The service's own refusal of a conversation id (the emulator's words), then an answer.
      if (log.posts === 1) return Response.json({ error: { code: 'INVALID_REQUEST', message: 'Invalid request: conversationId belongs to a conversation with another agent' } }, { status: 400 });
      return answer();
    case 'refuse-visitor-always':
      return Response.json({ error: { code: 'INVALID_REQUEST', message: 'Invalid request: visitorId is not accepted here' } }, { status: 400 });
    case 'refused-ids':
      // Ids the proxy would refuse: the widget must not adopt them.
      return answer(REFUSED_IDS_ANSWER);
    case 'usage-limit-stream':
      // A 200 stream that reports the usage limit, closed without the blank line after it.
      return streamResponse([answerEvent('Partial '), answerEvent('words'), errorLine('USAGE_LIMIT').trimEnd() + '\n'], { onCancel });
    case 'cut':
    case 'cut-once':
      if (scenario === 'cut-once' && log.posts > 1) return answer();
      return streamResponse([answerEvent('The partial **answer** that'), answerEvent(' stops here')], { onCancel });
    case 'cut-code':
      // Cut inside an inline code span: its closing backtick never comes.
      return streamResponse([answerEvent('Run `npm start'), answerEvent(' --port 8787 and')], { onCancel });
    case 'not-event-stream':
      return new Response('<html><body>Welcome</body></html>', { headers: { 'Content-Type': 'text/html' } });
    case 'slow':
      return streamResponse(
        Array.from({ length: 400 }, (_, i) => answerEvent(`word${i} `)),
        { delayMs: 25, onCancel },
      );
    default:
      return Response.json({ error: { code: 'NOT_FOUND', message: `No scenario ${scenario}` } }, { status: 404 });
  }
}

export function browserServiceMiddleware() {
  return koaMiddleware('/scripted/', async (request) => {
    const path = new URL(request.url).pathname;
    const page = cspPage(new URL(request.url)) ?? bfcachePage(new URL(request.url)) ?? turnstileScript(new URL(request.url));
    if (page) return page;
    if (path === '/scripted/stream/agents/a1/query') return streamResponse(sampleStreamChunks().flatMap((c) => byteChunks(c, 3)));
    if (path === '/scripted/json/agents/a1/query') return Response.json(SAMPLE_ANSWER);
    if (path === '/scripted/slow/agents/a1/query') {
      // 30 s in all: far longer than an abort may take even on a loaded machine.
      const chunks = Array.from({ length: 1500 }, (_, i) => `event: answer\ndata: part${i}%20\n\n`);
      return streamResponse(chunks, { delayMs: 20 });
    }
    // The features route of the scenarios, which stand in for kagent-proxy: as it answers at its defaults (sessions off).
    if (/^\/scripted\/widget\/[\w-]+\/features$/.test(path) && request.method === 'GET') return Response.json(NO_FEATURES, { headers: { 'Cache-Control': 'max-age=86400' } });
    // A service that is not kagent-proxy, which has no features route (a page names it with proxy-features="off").
    if (/^\/scripted\/not-proxy\/[\w-]+\/features$/.test(path)) {
      logOf(path.split('/')[3]!).features++;
      return Response.json({ error: { code: 'NOT_FOUND', message: 'No such route' } }, { status: 404 });
    }
    const notProxy = /^\/scripted\/not-proxy\/([\w-]+)\/agents\/([^/]+)\/query$/.exec(path);
    if (notProxy && request.method === 'POST') return widgetScenario('answer', decodeURIComponent(notProxy[2]!), request);
    const widget = /^\/scripted\/widget\/([\w-]+)\/agents\/([^/]+)\/query$/.exec(path);
    if (widget && request.method === 'POST') return widgetScenario(widget[1]!, decodeURIComponent(widget[2]!), request);
    if (path === '/scripted/spec-examples') return Response.json(specExamples());
    const release = /^\/scripted\/widget-release\/([^/]+)$/.exec(path);
    if (release && request.method === 'POST') {
      const hold = holdOf(decodeURIComponent(release[1]!));
      hold.release(Number(new URL(request.url).searchParams.get('bytes') ?? 0));
      // Answers once the rest is written (or the client went away), so the test knows it was sent.
      await hold.ended;
      return Response.json({ released: true });
    }
    const log = /^\/scripted\/widget-log\/([^/]+)$/.exec(path);
    if (log) return Response.json(logOf(decodeURIComponent(log[1]!)));
    // The same scenarios behind the real proxy; `/scripted/proxy-log/<agentId>` tells what reached the proxy.
    const refusing = /^\/scripted\/refusing\/([\w-]+)\//.exec(path);
    if (refusing) return refusingProxy(refusing[1]!, request, widgetScenario);
    const insights = /^\/scripted\/insights\/([\w-]+)\//.exec(path);
    if (insights) return insightsProxy(insights[1]!, request, widgetScenario);
    const proxiedFeatures = /^\/scripted\/proxy\/([\w-]+)\/features$/.exec(path);
    if (proxiedFeatures) return featuresOfProxy(proxiedFeatures[1]!, request);
    const proxied = /^\/scripted\/proxy\/([\w-]+)\/agents\/([^/]+)\/query$/.exec(path);
    if (proxied) return proxiedQuery(proxied[1]!, decodeURIComponent(proxied[2]!), request, widgetScenario);
    // The plain answer behind the real proxy with visitor sessions on (test/support/browser-sessions.ts).
    const sessions = await sessionRoute(path, request, widgetScenario);
    if (sessions) return sessions;
    const proxyLog = /^\/scripted\/proxy-log\/([^/]+)$/.exec(path);
    if (proxyLog) return Response.json(proxyLogOf(decodeURIComponent(proxyLog[1]!)));
    return Response.json({ error: { code: 'NOT_FOUND', message: `No scripted route ${path}` } }, { status: 404 });
  });
}
