// `npm start`, end to end: the real command (page server, proxy and emulator
// on 127.0.0.1) driven by Debian's Chromium through puppeteer-core.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { startEmulator } from '../fixtures/emulator/harness.js';
import { startDemoProcess } from '../../scripts/demo-process.js';
import { findChrome } from '../../scripts/find-chrome.js';
import { HIDE_NATIVE_SANITIZER } from '../support/csp-page.js';
import { earnSession, withSession } from '../support/proxy-sessions.js';

const KEY = `kagent_demo_e2e_${Math.random().toString(36).slice(2)}_KEY`;
let start: ChildProcess;
let pageUrl: string;
/** What npm start printed so far. */
let output: () => string = () => '';
let browser: Browser;
/** Every response the browser received: address, headers and body. */
const seen: { url: string; text: string }[] = [];

before(async () => {
  const demo = startDemoProcess(new URL('../../', import.meta.url), { KAGENT_DEMO_KEY: KEY }, 90_000);
  start = demo.child;
  output = demo.output;
  pageUrl = await demo.ready;
  browser = await puppeteer.launch({
    executablePath: findChrome(),
    // Puppeteer waits 30 s for the browser to say it is up: once not enough on a loaded CI machine.
    timeout: 120_000,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  await browser?.close();
  if (start?.pid && start.exitCode === null) {
    try {
      process.kill(-start.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/**
 * `hideNativeSanitizer`: the page runs as in a browser without a sanitizer of its own (Safari today).
 * `responses`: gets the address and status of every response, from before the page loads.
 */
async function openPage(url: string, { hideNativeSanitizer = false, responses = [] as { url: string; status: number }[] } = {}): Promise<Page> {
  const page = await browser.newPage();
  page.on('response', (response) => responses.push({ url: response.url(), status: response.status() }));
  if (hideNativeSanitizer) await page.evaluateOnNewDocument(HIDE_NATIVE_SANITIZER);
  // Headers of every response; bodies of those that finish (page, script, config).
  page.on('response', (response) => seen.push({ url: response.url(), text: `${response.status()} ${JSON.stringify(response.headers())}` }));
  page.on('requestfinished', async (request) => {
    const text = await request.response()?.text().catch(() => '');
    if (text) seen.push({ url: request.url(), text });
  });
  // A streamed answer is closed by the widget once done, so the browser never
  // hands its body over: the page's own fetch keeps a copy of every body it reads.
  await page.evaluateOnNewDocument(() => {
    const bodies: { url: string; text: string }[] = [];
    (window as unknown as { seenBodies: typeof bodies }).seenBodies = bodies;
    const original = window.fetch;
    window.fetch = async (...args) => {
      const response = await original(...args);
      const entry = { url: response.url, text: `${response.status} ` };
      bodies.push(entry);
      const reader = response.clone().body?.getReader();
      const decoder = new TextDecoder();
      void (async () => {
        for (;;) {
          const { done, value } = await reader!.read();
          if (done) break;
          entry.text += decoder.decode(value, { stream: true });
        }
      })().catch(() => {});
      return response;
    };
  });
  await page.goto(url).catch((error: Error) => {
    throw new Error(`${error.message}; the file's npm start ${start.exitCode === null && start.signalCode === null ? 'runs' : `ended (${start.exitCode ?? start.signalCode})`} and printed:\n${output()}`);
  });
  await waitInChat(page, 'textarea[part="input"]:not([disabled])');
  return page;
}

async function ask(page: Page, question: string): Promise<void> {
  await page.type('kagent-chat >>> textarea[part="input"]', question);
  await page.keyboard.press('Enter');
}

/**
 * Waits for `selector` inside the widget's shadow root. Polled: a selector
 * wait watches the document's mutations, which do not see inside the shadow root.
 */
async function waitInChat(page: Page, selector: string, timeout = 30_000): Promise<void> {
  await page
    .waitForFunction((s) => Boolean(document.querySelector('kagent-chat')?.shadowRoot?.querySelector(s)), { polling: 100, timeout }, selector)
    .catch(async (error: Error) => {
      throw new Error(`${error.message} waiting for ${selector}; the chat reads: ${(await texts(page, '[part="transcript"]')).join('')}`);
    });
}

/** The bodies the page's fetch received so far; kept for the key scan. */
async function fetchedBodies(page: Page): Promise<{ url: string; text: string }[]> {
  const bodies = await page.evaluate(() => (window as unknown as { seenBodies: { url: string; text: string }[] }).seenBodies);
  fetched.push(...bodies);
  return bodies;
}
const fetched: { url: string; text: string }[] = [];

/** Texts in the inline chat, or in the demo's bubble (`mode="bubble"`). */
const texts = (page: Page, selector: string, chat = 'kagent-chat:not([mode="bubble"])') =>
  page.$$eval(`${chat} >>> ${selector}`, (nodes) => nodes.map((node) => (node as HTMLElement).textContent!.trim()));

test('a question gets a streamed answer whose sources name the seeded documents', { timeout: 60_000 }, async () => {
  const page = await openPage(pageUrl);
  await ask(page, 'How do I deploy the proxy to Cloudflare Workers?');
  await waitInChat(page, 'li[part="source"]');
  const bodies = await fetchedBodies(page);
  const stream = bodies.find((body) => /\/agents\/[^/]+\/query$/.test(body.url));
  assert.ok(stream, 'the page asked the proxy');
  // npm start has visitor sessions on: the page earned one (challenge, then session) before its question was answered.
  assert.ok(bodies.some((body) => /\/sessions\/challenge$/.test(body.url) && body.text.startsWith('200 ')), 'the page got a challenge');
  assert.ok(bodies.some((body) => /\/sessions$/.test(body.url) && body.text.startsWith('201 ')), 'and earned a session');
  assert.match(stream.text, /^200 event: answer\ndata: [^\n]+\n\n/, 'the answer came as an event stream');
  assert.match(stream.text, /event: \ndata: \[DONE\]/);
  const answer = (await texts(page, '[part="answer"]')).join('\n');
  assert.ok(answer.length > 40, `a real answer: ${answer}`);
  const sources = (await texts(page, 'li[part="source"]')).join('\n');
  assert.match(sources, /proxy\.md|README\.md/, `sources name seeded documents: ${sources}`);

  // A reload keeps the conversation.
  await page.reload();
  await waitInChat(page, '[part="answer"]');
  assert.match((await texts(page, '[part="question"]')).join(''), /Cloudflare Workers/);
  assert.equal((await texts(page, '[part="answer"]')).join('\n'), answer);
  // The bubble asks another agent: it does not take over the inline chat's stored conversation.
  assert.equal((await texts(page, '[part="transcript"]', 'kagent-chat[mode="bubble"]')).length, 1, 'the bubble is there');
  assert.deepEqual(await texts(page, '[part="question"]', 'kagent-chat[mode="bubble"]'), []);

  // New conversation starts over.
  await page.click('kagent-chat >>> button[part="new-conversation"]');
  await page.waitForFunction(() => !document.querySelector('kagent-chat')?.shadowRoot?.querySelector('[part="question"]'));
  await page.reload();
  await waitInChat(page, 'textarea[part="input"]');
  assert.deepEqual(await texts(page, '[part="question"]'), [], 'the old conversation does not come back');

  // Storage holds ids and the transcript, never the key.
  await fetchedBodies(page);
  const storage = await page.evaluate(() => JSON.stringify({ ...localStorage }));
  assert.ok(!storage.includes(KEY));
  const html = await page.content();
  assert.ok(!html.includes(KEY));
  await page.close();
});

test('npm start runs with insights on and prints the report\'s command and token; the report holds the question asked', { timeout: 60_000 }, async () => {
  const said = /kagent-proxy insights --url (\S+) --token ([0-9a-f]{64})/.exec(output());
  assert.ok(said, `the report's command in: ${output()}`);
  const [, endpoint, token] = said;
  const deadline = Date.now() + 10_000;
  let questions = 0;
  // Records land once an answer has ended: asked until the first test's question is there.
  while (questions === 0 && Date.now() < deadline) {
    const report = (await (await fetch(`${endpoint}/insights`, { headers: { authorization: `Bearer ${token}` } })).json()) as { totals: { questions: number } };
    questions = report.totals.questions;
    if (!questions) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.ok(questions >= 1, 'the question of the first test is in the report');
});

test('in a browser without a sanitizer of its own, the page serves the second part with DOMPurify inside and the answer shows', { timeout: 60_000 }, async () => {
  // The chat may fetch its chunks at idle time, before the visitor asks: every response from the start is kept.
  const responses: { url: string; status: number }[] = [];
  const page = await openPage(pageUrl, { hideNativeSanitizer: true, responses });
  await ask(page, 'How do I deploy the proxy to Cloudflare Workers?');
  await waitInChat(page, 'li[part="source"]');
  const fetched = (pattern: RegExp) => responses.filter((response) => pattern.test(new URL(response.url).pathname)).map((response) => response.status);
  assert.deepEqual(fetched(/\/kagent-chat-answers-dompurify-[\w-]+\.js$/), [200], `the second part with DOMPurify fetched once: ${JSON.stringify(responses)}`);
  assert.deepEqual(fetched(/\/kagent-chat-(answers-(?!dompurify-)|sanitizer-)[\w-]+\.js$/), [], 'neither the second part alone nor DOMPurify alone');
  const answer = (await texts(page, '[part="answer"]')).join('\n');
  assert.ok(answer.length > 40, `a real answer: ${answer}`);
  assert.deepEqual(await texts(page, '[part="failure"]'), []);
  await page.close();
});

test('a page asking for an agent the proxy does not serve gets a clear refusal', { timeout: 60_000 }, async () => {
  const page = await openPage(`${pageUrl}?agent=someone-elses-agent`);
  await ask(page, 'Hello?');
  await waitInChat(page, '[part="failure"]');
  const failure = await page.$('kagent-chat >>> [part="failure"]');
  assert.equal(await failure!.evaluate((node) => node.getAttribute('data-kind')), 'not-found');
  assert.ok((await failure!.evaluate((node) => (node as HTMLElement).innerText)).length > 10, 'a message a person can read');
  const refusal = (await fetchedBodies(page)).find((body) => body.url.includes('/agents/someone-elses-agent/query'));
  assert.match(refusal?.text ?? '', /^404 .*NOT_FOUND/);
  await page.close();
});

test('no response the page received, nor the output of npm start, holds the API key', () => {
  assert.ok(seen.length >= 6, `the browser saw the page, the script and the answers (${seen.length} responses)`);
  assert.ok(seen.some((response) => response.url.endsWith('/kagent-chat.js')), 'the script was scanned too');
  assert.ok(fetched.some((body) => body.text.includes('[DONE]')), 'the streamed answers were scanned too');
  for (const response of [...seen, ...fetched]) assert.ok(!response.text.includes(KEY), `the key is in ${response.url}`);
  assert.ok(!output().includes(KEY), 'the key is in the output of npm start');
});

test('npm start builds quietly and says the demo\'s limits', () => {
  // Rolldown's [PLUGIN_TIMINGS] report, in raw colour codes, only when KAGENT_BUILD_TIMINGS=1 asks for it.
  assert.doesNotMatch(output(), /PLUGIN_TIMINGS|\x1b\[/);
  assert.match(output(), /Limits, loose for trying it out: 60 questions every 5 minutes per conversation, 30 a minute per visitor, 60 a minute per address, 60 new conversations an hour per address\./);
});

test('a port already in use gets a clear message, not a stack trace', { timeout: 30_000 }, async (t) => {
  const port = new URL(pageUrl).port;
  const second = spawn(process.execPath, ['--import', 'tsx', 'demo/start.ts'], {
    cwd: new URL('../../', import.meta.url),
    env: { ...process.env, PORT: port, KAGENT_PROXY_PORT: '0', KAGENT_EMULATOR_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Should it start after all (the port freed), the test's time limit ends it: the file must not wait on it forever.
    signal: t.signal,
    killSignal: 'SIGKILL',
  });
  second.on('error', () => {});
  let said = '';
  second.stdout!.on('data', (chunk: Buffer) => (said += chunk));
  second.stderr!.on('data', (chunk: Buffer) => (said += chunk));
  const code = await new Promise<number | null>((resolve) => second.on('exit', resolve));
  assert.equal(code, 1);
  assert.match(said, new RegExp(`Port ${port} is already in use, so the page cannot start\\. .*PORT=\\d+ npm start`));
  assert.doesNotMatch(said, /\n\s+at /, 'no stack trace');
});

test('Ctrl-C stops the page, the proxy and the emulator', { timeout: 30_000 }, async () => {
  const config = (await (await fetch(new URL('demo-config.json', pageUrl))).json()) as { endpoint: string };
  const emulator = /local service \(emulator\) at (http:\/\/127\.0\.0\.1:\d+)/.exec(output())?.[1];
  assert.ok(emulator, 'npm start says where the emulator is');
  assert.equal((await fetch(`${emulator}/v1/agents`)).status, 401, 'the emulator is up and wants a key');
  // As a terminal's Ctrl-C does: SIGINT to npm and the node process under it.
  const exited = new Promise<[number | null, string | null]>((resolve) => start.on('exit', (code, signal) => resolve([code, signal])));
  process.kill(-start.pid!, 'SIGINT');
  const [code, signal] = await exited;
  assert.ok(code === 0 || signal === 'SIGINT', `npm start ended with ${code ?? signal}`);
  for (const address of [pageUrl, config.endpoint, emulator]) {
    await assert.rejects(fetch(address), `${address} still answers`);
  }
});

test('with KAGENT_UPSTREAM_URL, KAGENT_API_KEY and KAGENT_AGENT_IDS, the page is served through the proxy to that service', { timeout: 60_000 }, async () => {
  // Another service, standing in for the real one, with its own key.
  const service = await startEmulator({ port: 0, pace: 0, log: () => {}, demoApiKey: `${KEY}_upstream` });
  const child = spawn(process.execPath, ['--import', 'tsx', 'demo/start.ts'], {
    cwd: new URL('../../', import.meta.url),
    env: { ...process.env, PORT: '0', KAGENT_PROXY_PORT: '0', KAGENT_UPSTREAM_URL: service.url, KAGENT_API_KEY: service.demo.apiKey, KAGENT_AGENT_IDS: service.demo.agentId },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let said = '';
  try {
    const page = await new Promise<string>((resolve, reject) => {
      const read = (chunk: Buffer) => {
        said += chunk;
        const match = /kagent-chat demo:\s+(http:\/\/127\.0\.0\.1:\d+\/)/.exec(said);
        if (match) resolve(match[1]!);
      };
      child.stdout!.on('data', read);
      child.stderr!.on('data', read);
      child.on('exit', (code) => reject(new Error(`start exited (${code}): ${said}`)));
    });
    assert.match(said, new RegExp(`Answering from ${service.url.replace(/[.:/]/g, '\\$&')}`));
    assert.doesNotMatch(said, /Reading the knowledge base/, 'no emulator of its own');
    const config = (await (await fetch(new URL('demo-config.json', page))).json()) as { endpoint: string; agentId: string };
    assert.equal(config.agentId, service.demo.agentId);
    // Visitor sessions are on in npm start: a session first, as the page earns one.
    const { grant } = await earnSession(config.endpoint, new URL(page).origin);
    const answer = await fetch(`${config.endpoint}/agents/${config.agentId}/query`, {
      method: 'POST',
      headers: withSession(grant.token, new URL(page).origin),
      body: JSON.stringify({ query: 'Hello', streaming: true }),
    });
    assert.equal(answer.status, 200);
    const text = await answer.text();
    assert.match(text, /event: \ndata: \[DONE\]/);
    assert.ok(!text.includes(service.demo.apiKey) && !said.includes(service.demo.apiKey), 'the key stays in the proxy');
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGINT');
      await exited;
    }
    await service.close();
  }
});

test('a warning of the proxy child reaches npm start\'s terminal, prefixed with its name', { timeout: 120_000 }, async () => {
  // A service that is down: every request gets a 503, which the proxy turns into a 502 and logs as a warning on its stderr.
  const { createServer } = await import('node:http');
  const down = createServer((_request, response) => {
    response.writeHead(503, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify({ message: 'down for maintenance' }));
  });
  await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
  const serviceUrl = `http://127.0.0.1:${(down.address() as import('node:net').AddressInfo).port}`;
  // The build of the first npm start serves again.
  const demo = startDemoProcess(new URL('../../', import.meta.url), { KAGENT_UPSTREAM_URL: serviceUrl, KAGENT_API_KEY: `${KEY}_down`, KAGENT_AGENT_IDS: 'agent-down' }, 90_000, { build: false });
  try {
    const page = await demo.ready;
    const config = (await (await fetch(new URL('demo-config.json', page))).json()) as { endpoint: string; agentId: string };
    const { grant } = await earnSession(config.endpoint, new URL(page).origin);
    const answer = await fetch(`${config.endpoint}/agents/${config.agentId}/query`, {
      method: 'POST',
      headers: withSession(grant.token, new URL(page).origin),
      body: JSON.stringify({ query: 'Hello' }),
    });
    assert.equal(answer.status, 502);
    await answer.text();
    // The warning is written after the 502 is sent: wait for npm start to print it.
    const warned = /^proxy: warn: the service answered 503$/m;
    if (!warned.test(demo.output())) {
      await new Promise<void>((resolve, reject) => {
        const check = () => {
          if (warned.test(demo.output())) resolve();
        };
        demo.child.stdout!.on('data', check);
        demo.child.stderr!.on('data', check);
        demo.child.on('exit', () => reject(new Error(`npm start exited:\n${demo.output()}`)));
        check();
      });
    }
    assert.match(demo.output(), warned);
    assert.ok(!demo.output().includes(`${KEY}_down`), 'the key stays out of the terminal');
  } finally {
    if (demo.child.exitCode === null) {
      const exited = new Promise((resolve) => demo.child.on('exit', resolve));
      process.kill(-demo.child.pid!, 'SIGINT');
      await exited;
    }
    await new Promise((resolve) => down.close(resolve));
  }
});

/** Free ports on 127.0.0.1, so a restart can listen where the open page expects it. */
async function freePorts(count: number): Promise<number[]> {
  const { createServer } = await import('node:net');
  const servers = await Promise.all(
    Array.from({ length: count }, () => new Promise<import('node:net').Server>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => resolve(server));
    })),
  );
  const ports = servers.map((server) => (server.address() as import('node:net').AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

/** `node demo/start.ts` (what npm start runs after its build), on fixed ports and a data folder. */
function startDirect(env: Record<string, string>): { child: ChildProcess; ready: Promise<string>; said: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'demo/start.ts'], {
    cwd: new URL('../../', import.meta.url),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let said = '';
  const ready = new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      said += chunk;
      const match = /kagent-chat demo:\s+(http:\/\/127\.0\.0\.1:\d+\/)/.exec(said);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('exit', (code) => reject(new Error(`start exited (${code}): ${said}`)));
  });
  ready.catch(() => {});
  return { child, ready, said: () => said };
}

test('kill -9 of the start process frees every port, and after a restart the open page\'s Retry continues the conversation', { timeout: 120_000 }, async () => {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dataDir = mkdtempSync(join(tmpdir(), 'kagent-demo-restart-'));
  const [pagePort, proxyPort, emulatorPort] = await freePorts(3);
  const env = { PORT: String(pagePort), KAGENT_PROXY_PORT: String(proxyPort), KAGENT_EMULATOR_PORT: String(emulatorPort), KAGENT_DATA_DIR: dataDir };
  let second: ReturnType<typeof startDirect> | undefined;
  const first = startDirect(env);
  try {
    const url = await first.ready;
    const page = await openPage(url);
    await ask(page, 'How do I deploy the proxy to Cloudflare Workers?');
    await waitInChat(page, 'li[part="source"]');
    const firstConversation = await page.evaluate(() => JSON.stringify({ ...localStorage }));

    // SIGKILL: no handler runs in the parent; its children must notice on their own.
    const exited = new Promise((resolve) => first.child.on('exit', resolve));
    first.child.kill('SIGKILL');
    await exited;
    for (const port of [pagePort, proxyPort, emulatorPort]) {
      await eventuallyRefused(`http://127.0.0.1:${port}/`);
    }

    // Asked while everything is down: a failure with Retry.
    await ask(page, 'And how do I put it on Vercel?');
    await waitInChat(page, '[part="failure"]');

    second = startDirect(env);
    assert.equal(await second.ready, url, 'the restart serves the same address');
    await page.click('kagent-chat >>> button[part="retry"]');
    // The retried turn (the second) answered in full (its Copy button is there, no failure): the restarted proxy has a new
    // session secret, so the page first hears SESSION_INVALID, earns a new session and sends the question once more.
    await page.waitForFunction(
      () => Boolean(document.querySelector('kagent-chat')?.shadowRoot?.querySelectorAll('[part="turn"]')[1]?.querySelector('[part="copy"]')) && !document.querySelector('kagent-chat')?.shadowRoot?.querySelector('[part="failure"]'),
      { polling: 100, timeout: 30_000 },
    );
    const bodies = await fetchedBodies(page);
    const queries = bodies.filter((body) => /\/agents\/[^/]+\/query$/.test(body.url));
    const retried = queries.at(-1)!;
    assert.match(retried.text, /^200 /, 'the retried question was answered');
    assert.match(queries.at(-2)!.text, /^401 .*SESSION_INVALID/, 'after the session of the first start was refused, once');
    const conversationId = /conversationId\\?":\\?"([^"\\]+)/.exec(firstConversation)?.[1];
    assert.ok(conversationId && retried.text.includes(conversationId), 'the answer continues the first conversation');
    await page.close();
  } finally {
    for (const run of [first, second]) {
      if (run && run.child.exitCode === null && run.child.signalCode === null) {
        const done = new Promise((resolve) => run.child.on('exit', resolve));
        run.child.kill('SIGINT');
        await done;
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/** Waits until nothing listens at `address` any more. */
async function eventuallyRefused(address: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const refused = await fetch(address).then(() => false, () => true);
    if (refused) return;
    if (Date.now() > deadline) throw new Error(`${address} still answers after its parent was killed`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
