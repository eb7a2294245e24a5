// Refreshes docs/demo.png, the README's screenshot: runs `npm start` on free
// ports, asks the inline chat the README's example question in Debian's
// Chromium (through puppeteer-core), waits for the answer's sources, opens the
// bubble, saves the page 1560 pixels wide, and stops everything it started.
//   node --import tsx scripts/demo-screenshot.ts [output.png] [question]
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { startDemoProcess } from './demo-process.js';
import { findChrome } from './find-chrome.js';

const QUESTION = process.argv[3] ?? 'How do I deploy the proxy to Cloudflare Workers?';
// Wide enough that the open bubble (380 pixels, at the right) sits beside the 760-pixel page, not over the inline answer.
const WIDTH = 1560;
const output = process.argv[2] ?? fileURLToPath(new URL('../docs/demo.png', import.meta.url));
const root = new URL('../', import.meta.url);

let start: ChildProcess | undefined;
let browser: Browser | undefined;

async function main(): Promise<void> {
  const demo = startDemoProcess(root);
  start = demo.child;
  const pageUrl = await demo.ready;
  browser = await puppeteer.launch({
    executablePath: findChrome(),
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage();
  await page.setViewport({ width: WIDTH, height: 1000, deviceScaleFactor: 1 });
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }, { name: 'prefers-reduced-motion', value: 'reduce' }]);
  await page.goto(pageUrl);
  await waitInChat(page, 'textarea[part="input"]:not([disabled])');
  await page.type('kagent-chat >>> textarea[part="input"]', QUESTION);
  await page.keyboard.press('Enter');
  // Sources come with the end of the stream; then the Send button is back.
  await waitInChat(page, 'li[part="source"]', 60_000);
  await waitInChat(page, 'button[part="send"]');
  // The question at the top of the transcript, so question, answer and sources are all in view.
  await page.$eval('kagent-chat >>> [part="question"]', (question) => question.scrollIntoView({ block: 'start' }));
  await page.$eval('kagent-chat:not([mode="bubble"])', (chat) => chat.scrollIntoView({ block: 'end' }));
  const bottom = await page.$eval('kagent-chat:not([mode="bubble"])', (chat) => Math.ceil(chat.getBoundingClientRect().bottom + window.scrollY) + 24);
  await page.setViewport({ width: WIDTH, height: bottom, deviceScaleFactor: 1 });
  await page.$eval('kagent-chat >>> [part="question"]', (question) => question.scrollIntoView({ block: 'start' }));
  // That scrolled the page too (it is taller than the picture: room for the launcher under its end): back to its top.
  await page.evaluate(() => window.scrollTo(0, 0));
  // The bubble too: opened in its corner, above the page.
  await page.$eval('kagent-chat[mode="bubble"]', (chat) => (chat as HTMLElement & { open(): void }).open());
  await page.waitForFunction(() => document.querySelector('kagent-chat[mode="bubble"]')?.shadowRoot?.querySelector('[part="base"]:not([hidden])'), { polling: 100, timeout: 10_000 });
  await page.screenshot({ path: output as `${string}.png`, clip: { x: 0, y: 0, width: WIDTH, height: bottom } });
  console.log(`Saved ${output} (${WIDTH} x ${bottom}): "${QUESTION}"`);
}

/** Waits for `selector` inside the inline chat's shadow root (polled: mutation waits do not see into it). */
async function waitInChat(page: Page, selector: string, timeout = 30_000): Promise<void> {
  await page.waitForFunction((s) => Boolean(document.querySelector('kagent-chat:not([mode="bubble"])')?.shadowRoot?.querySelector(s)), { polling: 100, timeout }, selector);
}

async function stop(): Promise<void> {
  await browser?.close().catch(() => {});
  if (start?.pid && start.exitCode === null) {
    try {
      process.kill(-start.pid, 'SIGINT');
    } catch {
      // already gone
    }
  }
}

process.once('SIGINT', () => void stop().then(() => process.exit(130)));
try {
  await main();
} catch (error) {
  console.error(`The screenshot failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await stop();
}
