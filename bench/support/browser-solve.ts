// The session challenge's solve time in headless Chromium, on the main thread and
// in a Worker, unthrottled and with 4x CPU throttling (as DevTools emulates a slow
// phone), with the protocol's WebCrypto solver: what a visitor's page pays for a
// session, beside the native figure of the bench's bots.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import puppeteer from 'puppeteer-core';
import { findChrome } from '../../scripts/find-chrome.js';
import type { SessionChallenge } from '../../src/protocol/index.js';

export interface BrowserSolve {
  throttle: number;
  where: 'main thread' | 'Worker';
  /** Milliseconds per challenge (all its parts), one per challenge given. */
  ms: number[];
}

/** Solves each challenge (its parts in turn) in Chromium at each CPU throttling rate, on the main thread and in a Worker. */
export async function browserSolveTimes(challenges: SessionChallenge[][], throttles = [1, 4]): Promise<BrowserSolve[]> {
  const solver = (
    await build({
      entryPoints: [fileURLToPath(new URL('../../src/protocol/sessions/index.ts', import.meta.url))],
      bundle: true,
      format: 'iife',
      globalName: 'kagentSessions',
      platform: 'browser',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
    })
  ).outputFiles[0]!.text;
  // A page on 127.0.0.1: a secure context, where WebCrypto is available.
  const server = createServer((request, response) => {
    if (request.url === '/solver.js') {
      response.writeHead(200, { 'Content-Type': 'text/javascript' });
      response.end(`${solver}\nself.onmessage = async (event) => { const started = performance.now(); await kagentSessions.solveSessionChallenges(event.data); self.postMessage(performance.now() - started); };`);
      return;
    }
    response.writeHead(200, { 'Content-Type': 'text/html' });
    response.end('<!doctype html><script src="/solver.js"></script>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const browser = await puppeteer.launch({ executablePath: findChrome(), args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'] });
  const results: BrowserSolve[] = [];
  try {
    for (const throttle of throttles) {
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      const cdp = await page.createCDPSession();
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: throttle });
      const main: number[] = [];
      const worker: number[] = [];
      for (const challenge of challenges) {
        main.push(
          await page.evaluate(async (c) => {
            const started = performance.now();
            await (window as unknown as { kagentSessions: { solveSessionChallenges(c: unknown): Promise<unknown> } }).kagentSessions.solveSessionChallenges(c);
            return performance.now() - started;
          }, challenge),
        );
        worker.push(
          await page.evaluate(
            (c) =>
              new Promise<number>((resolve) => {
                const w = new Worker('/solver.js');
                w.onmessage = (event) => {
                  w.terminate();
                  resolve(event.data as number);
                };
                w.postMessage(c);
              }),
            challenge,
          ),
        );
      }
      results.push({ throttle, where: 'main thread', ms: main }, { throttle, where: 'Worker', ms: worker });
      await page.close();
    }
  } finally {
    await browser.close();
    server.close();
  }
  return results;
}
