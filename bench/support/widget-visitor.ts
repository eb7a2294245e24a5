// A visitor's wait in the widget, with visitor sessions on and off: the built chat
// (dist/kagent-chat.js and its chunks) on a page in headless Chromium with the CPU
// throttled (as DevTools emulates a slow phone), asking the real proxy in front of a
// service stub that answers at once; timed from the question sent to the first
// words of the answer on screen, for each way of asking `VisitorAsks` names.
import { readFile } from 'node:fs/promises';
import puppeteer from 'puppeteer-core';
import { findChrome } from '../../scripts/find-chrome.js';
import { DONE_EVENT, EVENT_STREAM_HEADERS, answerEvent, endpointResponseEvent } from '../../src/protocol/index.js';
import { createProxy, type ProxyHandler } from '../../src/proxy/index.js';
import { serveProxy } from '../../src/proxy/node/index.js';

export interface VisitorWait {
  sessions: 'off' | 'on';
  asked: VisitorAsks;
  /** Milliseconds from the question sent to its first answered words on screen, one per run (each a new visitor: fresh storage). */
  ms: number[];
  /** Where the page solved its challenge, per run (sessions on). */
  solvedBy: string[];
  /** Sessions on: when each step of earning the session ended, in ms after the question was sent (negative: before it), per run. */
  steps: Partial<Record<SessionStep, number>>[];
}

/** The requests a page makes to earn its session, in order, named by what ends them (Resource Timing's `responseEnd`). */
export const SESSION_STEPS = { challenge: 'challenge answered', keeper: 'keeper chunk loaded (its solver Worker\'s script too)', session: 'session granted', answer: 'answer started' } as const;
export type SessionStep = keyof typeof SESSION_STEPS;

const AGENT = 'agent_visitor';

/**
 * When and how the visitor asks: the question sent by a script with nothing focused before (the fastest a question can
 * come: no person can type without focusing the box), 3 s after load or as soon as the box is there; or typed, as a
 * person does: the box focused 3 s after load, the question typed at 20 keys a second, then sent.
 */
export type VisitorAsks = '3 s after load' | '3 s after load, typed' | 'at once';
const QUESTION = 'How long did that take?';

/** In the page (as text: tsx's helpers are not there): asks, and resolves with the ms until the answer's first words are on screen, and the session's steps. */
const ASK_AND_TIME = `new Promise((resolve, reject) => {
  const root = document.querySelector('kagent-chat').shadowRoot;
  const box = root.querySelector('textarea[part~="input"]');
  if (box.value !== ${JSON.stringify(QUESTION)}) box.value = ${JSON.stringify(QUESTION)};
  const started = performance.now();
  root.querySelector('button[part~="send"]').click();
  // When each request of the session's earning ended, relative to the question (the last of each kind: a renewal's).
  const steps = () => {
    const ends = {};
    for (const entry of performance.getEntriesByType('resource')) {
      const { pathname } = new URL(entry.name);
      const step = pathname.endsWith('/sessions/challenge') ? 'challenge' : pathname.endsWith('/sessions') ? 'session' : pathname.includes('kagent-chat-sessions-') ? 'keeper' : pathname.includes('/agents/') ? 'answer' : undefined;
      if (step) ends[step] = Math.round((step === 'answer' ? entry.responseStart : entry.responseEnd) - started);
    }
    return ends;
  };
  const check = () => {
    if (root.querySelector('[part~="answer-text"]')?.textContent?.trim()) resolve({ ms: performance.now() - started, steps: steps() });
    else if (root.querySelector('[part~="failure"]')) reject(new Error(root.querySelector('[part~="failure"]').textContent));
    else requestAnimationFrame(check);
  };
  check();
})`;
const ANSWER = { answer: 'Forty-two.', conversationId: 'c1', visitorId: 'v1', messageId: 'm1', sources: [] };

/** `runs` visitors for each of sessions off and on, for each way of asking (`VisitorAsks`), at `throttle`x CPU throttling. */
export async function widgetVisitorWaits(dist: URL, { runs = 5, throttle = 4, difficulty }: { runs?: number; throttle?: number; difficulty?: number } = {}): Promise<VisitorWait[]> {
  // The service: the answer at once, as a stream.
  const service = await serveProxy(async () => new Response(answerEvent(ANSWER.answer) + endpointResponseEvent(JSON.stringify(ANSWER)) + DONE_EVENT, { headers: EVENT_STREAM_HEADERS }), { port: 0, log: false });
  let origin = '';
  const proxies = new Map<string, ProxyHandler>();
  const proxyFor = (mode: 'on' | 'off') => {
    let proxy = proxies.get(mode);
    if (!proxy) {
      proxy = createProxy({
        apiKey: 'sk_bench_visitor_0123456789',
        upstreamUrl: service.url,
        agentIds: [AGENT],
        allowedOrigins: [origin],
        basePath: `/${mode}`,
        perAddressLimit: false,
        perVisitorLimit: false,
        // One address asks for every visitor here: the per-address session limit would stop the runs, not measure them.
        sessionsPerAddress: false,
        log: false,
        ...(mode === 'on' ? { sessionSecret: 'bench-visitor-session-secret-0123456789abcdef', ...(difficulty ? { sessionDifficulty: difficulty } : {}) } : {}),
      });
      proxies.set(mode, proxy);
    }
    return proxy;
  };
  const site = await serveProxy(
    async (request) => {
      const { pathname, searchParams } = new URL(request.url);
      const mode = /^\/(on|off)\//.exec(pathname)?.[1] as 'on' | 'off' | undefined;
      if (mode) return proxyFor(mode)(request);
      if (pathname === '/page') {
        const endpoint = searchParams.get('sessions') === 'on' ? '/on' : '/off';
        return new Response(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A visitor</title><script type="module" src="/dist/kagent-chat.js"></script></head><body><kagent-chat agent-id="${AGENT}" endpoint="${endpoint}"></kagent-chat></body></html>`, { headers: { 'Content-Type': 'text/html; charset=utf-8' } });
      }
      const built = /^\/dist\/(kagent-chat[\w-]*\.js)$/.exec(pathname);
      if (built) return new Response(await readFile(new URL(built[1]!, dist)), { headers: { 'Content-Type': 'text/javascript', 'Cache-Control': 'no-store' } });
      return new Response('Not found', { status: 404 });
    },
    { port: 0, log: false },
  );
  origin = new URL(site.url).origin;
  const browser = await puppeteer.launch({ executablePath: findChrome(), args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'] });
  const waits: VisitorWait[] = [];
  try {
    for (const asked of ['3 s after load', '3 s after load, typed', 'at once'] as const) {
      for (const sessions of ['off', 'on'] as const) {
        const wait: VisitorWait = { sessions, asked, ms: [], solvedBy: [], steps: [] };
        for (let run = 0; run < runs; run++) {
          // A new visitor each time: nothing kept from the last one.
          const context = await browser.createBrowserContext();
          const page = await context.newPage();
          const cdp = await page.createCDPSession();
          await cdp.send('Emulation.setCPUThrottlingRate', { rate: throttle });
          await page.goto(`${site.url}page?sessions=${sessions}`, { waitUntil: 'load' });
          await page.waitForFunction(`document.querySelector('kagent-chat')?.shadowRoot?.querySelector('textarea[part~="input"]')`, { polling: 20, timeout: 30_000 });
          if (asked !== 'at once') await new Promise((resolve) => setTimeout(resolve, 3000));
          if (asked === '3 s after load, typed') {
            await page.focus('kagent-chat >>> textarea[part~="input"]');
            await page.keyboard.type(QUESTION, { delay: 50 });
          }
          const { ms, steps } = (await page.evaluate(ASK_AND_TIME)) as { ms: number; steps: VisitorWait['steps'][number] };
          wait.ms.push(ms);
          if (sessions === 'on') wait.steps.push(steps);
          const kept = (await page.evaluate(`Object.entries(sessionStorage).find(([key]) => key.startsWith('kagent-chat-session'))?.[1]`)) as string | undefined;
          if (sessions === 'on') wait.solvedBy.push((JSON.parse(kept ?? '{}') as { solvedBy?: string }).solvedBy ?? 'none');
          await context.close();
        }
        waits.push(wait);
      }
    }
  } finally {
    await browser.close();
    await site.close();
    await service.close();
  }
  return waits;
}
