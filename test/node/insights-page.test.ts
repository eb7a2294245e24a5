// The insights report page in Chromium (Debian's, through puppeteer-core): it renders with its chart, loads nothing,
// and a question written as markup stays text. The page is served by a real proxy that recorded that question.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import puppeteer, { type Browser } from 'puppeteer-core';
import { findChrome } from '../../scripts/find-chrome.js';
import { AGENT, startProxyHarness, type ProxyHarness } from '../support/proxy-harness.js';
import { ADMIN_TOKEN, reportWhen } from '../support/proxy-insights.js';
import { reply } from '../support/proxy-upstream.js';
import { QUESTION_ID_HEADER } from '../../src/protocol/index.js';
import { writeFileSync } from 'node:fs';

const HOSTILE = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script><b>bold?</b>';
let h: ProxyHarness;
let browser: Browser;

before(async () => {
  h = await startProxyHarness({ insights: true, adminToken: ADMIN_TOKEN });
  for (const query of [HOSTILE, 'How do I reset my password?', 'reset password']) await h.send(`/agents/${AGENT}/query`, { json: { query, streaming: true } });
  await reportWhen(h.url, (r) => r.totals.questions === 3);
  browser = await puppeteer.launch({ executablePath: findChrome(), timeout: 120_000, args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
});

after(async () => {
  await browser?.close();
  await h?.close();
});

test('the report page renders on a phone with its chart, requests nothing more, and a hostile question stays inert text', { timeout: 60_000 }, async () => {
  const page = await browser.newPage();
  await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 2 });
  await page.setExtraHTTPHeaders({ authorization: `Bearer ${ADMIN_TOKEN}` });
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  const violations: string[] = [];
  page.on('console', (message) => violations.push(message.text()));
  const response = await page.goto(`${h.url}/insights?format=html`, { waitUntil: 'load' });
  assert.equal(response?.status(), 200);
  assert.deepEqual(requests, [`${h.url}/insights?format=html`], 'no request but the page itself');
  const seen = await page.evaluate(() => ({
    bars: document.querySelectorAll('svg rect').length,
    chartWidth: document.querySelector('svg')!.getBoundingClientRect().width,
    pageWidth: document.documentElement.scrollWidth,
    images: document.images.length,
    scripts: document.scripts.length,
    bold: document.querySelectorAll('li b').length,
    pwned: (window as unknown as { pwned?: number }).pwned,
    text: document.body.innerText,
  }));
  assert.ok(seen.bars >= 30, `a bar a day: ${seen.bars}`);
  assert.ok(seen.chartWidth > 300 && seen.pageWidth <= 390, `fits a phone: chart ${seen.chartWidth}px, page ${seen.pageWidth}px`);
  assert.equal(seen.images, 0);
  assert.equal(seen.scripts, 0);
  assert.equal(seen.bold, 0);
  assert.equal(seen.pwned, undefined);
  assert.ok(seen.text.includes(HOSTILE), 'the question shown as written');
  assert.match(seen.text, /(How do I reset my password\?|reset password)\s*2 times, 2 wordings/);
});

/** A short session as a site sees it: a few visitors, one question asked twice, one unanswered, one thumbs down with a comment. */
const SESSION: { visitor: number; query: string; answer: string; sources: string[]; down?: string }[] = [
  { visitor: 1, query: 'How do I install the widget?', answer: 'Add the script tag to your page, or run npm install kagent-chat and import it.', sources: ['README.md', 'docs/widget.md'] },
  { visitor: 2, query: 'Install the widget?', answer: 'Run npm install kagent-chat, then put <kagent-chat> where the chat goes.', sources: ['README.md'] },
  { visitor: 2, query: 'Can I change the colours?', answer: 'Yes: set the CSS custom properties on kagent-chat, such as --kagent-accent.', sources: ['docs/widget.md'] },
  { visitor: 3, query: 'Does it work with Vue?', answer: 'It is a web component, so it works in any framework that renders HTML elements.', sources: ['docs/widget.md'], down: 'No Vue 3 example' },
  { visitor: 3, query: 'What does it cost per month?', answer: "I don't know: nothing in the documents covers pricing.", sources: [] },
  { visitor: 4, query: 'Where do I put the API key?', answer: 'In the proxy, as KAGENT_API_KEY: never in the page.', sources: ['docs/proxy.md'] },
];

test('after a short session the report shows the thumbs down with its comment and the unanswered question (INSIGHTS_SCREENSHOT saves the page, INSIGHTS_TERMINAL the command\'s output)', { timeout: 60_000 }, async () => {
  const session = await startProxyHarness({ insights: true, adminToken: ADMIN_TOKEN, trustedProxyHops: 1, perAddressLimit: false });
  try {
    for (const { visitor, query, answer, sources, down } of SESSION) {
      const headers = { 'x-forwarded-for': `203.0.113.${visitor}` };
      session.upstream.behave(reply(200, { answer, conversationId: 'c', visitorId: 'v', sources: sources.map((name, i) => ({ datasource_id: `d${i}`, datasource_name: name, score: 0.9 })) }, { 'content-type': 'application/json' }));
      const { response } = await session.send(`/agents/${AGENT}/query`, { json: { query }, headers });
      assert.equal(response.status, 200);
      if (down) assert.equal((await session.send('/feedback', { json: { questionId: response.headers.get(QUESTION_ID_HEADER), rating: 'down', comment: down }, headers })).response.status, 204);
    }
    await reportWhen(session.url, (r) => r.totals.questions === SESSION.length && r.totals.thumbsDown === 1);
    const page = await browser.newPage();
    await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 1 });
    await page.setExtraHTTPHeaders({ authorization: `Bearer ${ADMIN_TOKEN}` });
    await page.goto(`${session.url}/insights?format=html`, { waitUntil: 'load' });
    const text = await page.evaluate(() => document.body.innerText);
    assert.match(text, /6\s*questions/);
    assert.match(text, /4\s*visitors/);
    assert.match(text, /Thumbs down\s*Does it work with Vue\?[^\n]*\n?No Vue 3 example/);
    assert.match(text, /Answered with no source\s*What does it cost per month\?/);
    if (process.env.INSIGHTS_SCREENSHOT) {
      // Down to the thumbs down (the slowest answers below repeat the questions), to keep the picture small.
      const bottom = await page.evaluate(() => [...document.querySelectorAll('h2')].find((h) => h.textContent === 'Slowest answers')!.getBoundingClientRect().top);
      await page.screenshot({ path: process.env.INSIGHTS_SCREENSHOT, clip: { x: 0, y: 0, width: 390, height: Math.ceil(bottom) }, captureBeyondViewport: true });
    }
    if (process.env.INSIGHTS_TERMINAL) {
      // Not execFileSync: the proxy answering the command runs in this process.
      const { execFile } = await import('node:child_process');
      const printed = await new Promise<string>((resolve, reject) => execFile(process.execPath, ['--import', 'tsx', 'src/proxy/node/cli.ts', 'insights', '--url', session.url, '--token', ADMIN_TOKEN], (error, stdout) => (error ? reject(error) : resolve(stdout))));
      writeFileSync(process.env.INSIGHTS_TERMINAL, printed);
    }
  } finally {
    await session.close();
  }
});
