// The insights report page in Chromium (Debian's, through puppeteer-core): it renders with its chart, loads nothing,
// and a question written as markup stays text. The page is served by a real proxy that recorded that question.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import puppeteer, { type Browser } from 'puppeteer-core';
import { findChrome } from '../../scripts/find-chrome.js';
import { AGENT, startProxyHarness, type ProxyHarness } from '../support/proxy-harness.js';
import { ADMIN_TOKEN, reportWhen } from '../support/proxy-insights.js';

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
  if (process.env.INSIGHTS_SCREENSHOT) await page.screenshot({ path: process.env.INSIGHTS_SCREENSHOT, fullPage: true });
});
