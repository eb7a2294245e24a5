// `npm run bench -- widget-load`: what a page pays for <kagent-chat>, measured in Chromium.
//   1. Sizes, gzip -9: the first part (dist/kagent-chat.js: draws the chat, takes a question;
//      budget 15 KB), everything a full chat loads (with the second part; budget 42 KB with the
//      browser's own sanitizer, 50 KB with the second part with DOMPurify inside where there is none,
//      each with the session keeper a proxy with visitor sessions on adds), and
//      today's single file built from the same source (KAGENT_SINGLE_FILE=1), each split into
//      the libraries' shares and our own code's.
//   2. What a bubble page whose visitor does nothing fetches before the browser is idle (budget:
//      the first part's 15 KB), and when the second part follows.
//   3. From the script tag to the launcher drawn, the split build and the single file side by side
//      on the same page in the same run, runs interleaved: on loopback, and under Chromium's
//      network emulation (Fast 4G, and Slow 4G, the mobile profile page-speed tools use).
//   4. From the launcher clicked to the question box focused, with the second part not yet
//      cached (clicked the moment the launcher is drawn), and when it is ready to answer.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import puppeteer, { PredefinedNetworkConditions, type Page } from 'puppeteer-core';
import { findChrome } from '../scripts/find-chrome.js';
import { readBuilt, shares, type BuiltFile } from '../scripts/bundle-shares.js';

const root = new URL('../', import.meta.url);
const KB = 1024;
const FIRST_PART_BUDGET = 15 * KB;
/** The whole chat on DOMPurify's path (Safari), with the session keeper a proxy with sessions on adds. */
const WHOLE_BUDGET = 50 * KB;
/** The whole chat where the browser sanitizes itself (Chromium, Firefox), DOMPurify left out, the keeper included. */
const NATIVE_WHOLE_BUDGET = 42 * KB;
const RUNS = Number(process.env.KAGENT_BENCH_RUNS ?? 9);

// Both builds from the current source: the split one into dist/, the single file into a folder of its own.
const singleDir = new URL(`node_modules/.cache/kagent-bench-single-${process.pid}/`, root);
const vite = (env: Record<string, string>, ...args: string[]) => {
  const result = spawnSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'warn', ...args], { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (result.status !== 0) process.exit(1);
};
vite({});
mkdirSync(singleDir, { recursive: true });
vite({ KAGENT_SINGLE_FILE: '1' }, '--outDir', singleDir.pathname);

const secondName = readdirSync(new URL('dist/', root)).find((name) => /^kagent-chat-answers-(?!dompurify-)[\w-]+\.js$/.test(name));
if (!secondName) throw new Error('The build made no second part (dist/kagent-chat-answers-*.js)');
const withDomPurifyName = readdirSync(new URL('dist/', root)).find((name) => /^kagent-chat-answers-dompurify-[\w-]+\.js$/.test(name));
if (!withDomPurifyName) throw new Error('The build made no second part with DOMPurify (dist/kagent-chat-answers-dompurify-*.js)');
const first = readBuilt(new URL('dist/', root), 'kagent-chat.js');
const second = readBuilt(new URL('dist/', root), secondName);
// Fetched instead of the second part only by a browser without a sanitizer of its own (Safari today), never in the Chromium runs below.
const withDomPurify = readBuilt(new URL('dist/', root), withDomPurifyName);
// Fetched only from a proxy with visitor sessions on, after the second part (either one).
const keeperName = readdirSync(new URL('dist/', root)).find((name) => /^kagent-chat-sessions-[\w-]+\.js$/.test(name));
if (!keeperName) throw new Error('The build made no session keeper (dist/kagent-chat-sessions-*.js)');
const keeper = readBuilt(new URL('dist/', root), keeperName);
const single = readBuilt(singleDir, 'kagent-chat.js');
rmSync(singleDir, { recursive: true, force: true });

const kb = (bytes: number) => `${(bytes / KB).toFixed(1)} KB`;
const bytes = (count: number) => `${count.toLocaleString('en-US')} bytes`;
const ms = (value: number) => `${Math.round(value)} ms`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const spread = (values: number[]) => `${ms(median(values))} (${ms(Math.min(...values))} to ${ms(Math.max(...values))})`;

// Who owns which bytes (read from the source maps; see scripts/bundle-shares.ts):
// `npm run size -- --modules` shows them module by module.
const OWNERS: [string, RegExp][] = [
  ['marked', /node_modules\/marked\//],
  ['DOMPurify', /node_modules\/dompurify\//],
  ['Lit', /node_modules\/(lit|lit-html|lit-element|@lit\/reactive-element)\//],
  ['fetch-event-source', /node_modules\/@microsoft\/fetch-event-source\//],
  ['our code (src/widget, src/protocol)', /\/src\//],
];
const OTHER = 'other (module glue, anything else)';
const ownerOf = (source: string | null) => (source ? (OWNERS.find(([, pattern]) => pattern.test(source))?.[0] ?? OTHER) : OTHER);
const ownerShares = (file: BuiltFile) => new Map([...shares(file, ownerOf)].map(([owner, share]) => [owner, share.gzip]));

// A page and both builds over loopback, gzipped as a site would serve them.
const files = new Map<string, Buffer>([
  ['/split/kagent-chat.js', first.gzip],
  [`/split/${second.name}`, second.gzip],
  ['/single/kagent-chat.js', single.gzip],
]);
const page = (build: 'split' | 'single', loading: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Bench</title>
<script>window.scriptTagAt = performance.now();</script>
${build === 'split' ? '<script type="module" src="/split/kagent-chat.js"></script>' : '<script src="/single/kagent-chat.js"></script>'}
</head><body><h1>A page with a chat bubble</h1><p>Some text of the page.</p>
<kagent-chat mode="bubble" agent-id="bench" endpoint="/api" ${loading}></kagent-chat>
<script type="module">
  const chat = document.querySelector('kagent-chat');
  await customElements.whenDefined('kagent-chat');
  await chat.updateComplete;
  window.launcherDrawnAt = performance.now();
</script></body></html>`;
const server = createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const file = files.get(url.pathname);
  if (file) {
    response.writeHead(200, { 'Content-Type': 'text/javascript', 'Content-Encoding': 'gzip', 'Content-Length': file.length, 'Cache-Control': 'no-store' });
    response.end(file);
    return;
  }
  const build = url.searchParams.get('build') === 'single' ? 'single' : 'split';
  response.writeHead(200, { 'Content-Type': 'text/html', 'Cache-Control': 'no-store' });
  response.end(page(build, url.searchParams.get('loading') ? `loading="${url.searchParams.get('loading')}"` : ''));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const browser = await puppeteer.launch({
  executablePath: findChrome(),
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

type Network = keyof typeof PredefinedNetworkConditions | 'loopback';
async function freshPage(network: Network): Promise<Page> {
  const tab = await browser.newPage();
  await tab.setCacheEnabled(false);
  if (network !== 'loopback') await tab.emulateNetworkConditions(PredefinedNetworkConditions[network]);
  return tab;
}

/** Script tag to launcher drawn (the element defined and its first render done). */
async function launcherDrawn(build: 'split' | 'single', network: Network): Promise<number> {
  const tab = await freshPage(network);
  await tab.goto(`${origin}/?build=${build}`);
  await tab.waitForFunction(() => 'launcherDrawnAt' in window, { timeout: 60_000 });
  const time = await tab.evaluate(() => (window as unknown as { launcherDrawnAt: number; scriptTagAt: number }).launcherDrawnAt - (window as unknown as { scriptTagAt: number }).scriptTagAt);
  await tab.close();
  return time;
}

/** Launcher clicked the moment it is drawn (second part not fetched yet): to the question box focused, and to the chat able to answer. */
async function clickToFocus(build: 'split' | 'single', network: Network): Promise<{ focused: number; ready: number; fetchedBeforeClick: boolean }> {
  const tab = await freshPage(network);
  await tab.goto(`${origin}/?build=${build}`, { waitUntil: 'domcontentloaded' });
  await tab.waitForFunction(() => 'launcherDrawnAt' in window, { timeout: 60_000 });
  const result = await tab.evaluate(async (split: boolean) => {
    const chat = document.querySelector('kagent-chat')!;
    const launcher = chat.shadowRoot!.querySelector<HTMLButtonElement>('[part~="launcher"]')!;
    const focused = new Promise<number>((resolve) => chat.shadowRoot!.addEventListener('focusin', (event) => (event.target as Element).localName === 'textarea' && resolve(performance.now())));
    const fetchedBeforeClick = performance.getEntriesByType('resource').some((entry) => entry.name.includes('/kagent-chat-answers-'));
    const clicked = performance.now();
    launcher.click();
    const focusedAt = await focused;
    // The same module the page loaded: its loadAnswerEngine() settles when the second part opening the chat fetched is here.
    if (split) await ((await import('/split/kagent-chat.js' as string)) as typeof import('../src/widget/script-tag.js')).loadAnswerEngine();
    return { focused: focusedAt - clicked, ready: performance.now() - clicked, fetchedBeforeClick };
  }, build === 'split');
  await tab.close();
  // The single file had everything before the launcher was drawn: ready when focused.
  return build === 'split' ? result : { ...result, ready: result.focused };
}

/** A bubble page left alone: the scripts it fetches (size over the wire) and when, against its load event, in the page's own clock. */
async function leftAlone(): Promise<{ files: { name: string; bytes: number; at: number }[]; loadAt: number }> {
  const tab = await freshPage('loopback');
  await tab.goto(`${origin}/?build=split`, { waitUntil: 'load' });
  // Nothing is touched: the second part comes once the browser is idle.
  await tab.waitForFunction(() => performance.getEntriesByType('resource').some((entry) => entry.name.includes('/kagent-chat-answers-') && (entry as PerformanceResourceTiming).responseEnd > 0), { timeout: 30_000 });
  const result = await tab.evaluate(() => ({
    loadAt: (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).loadEventStart,
    files: (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
      .filter((entry) => entry.name.endsWith('.js'))
      .map((entry) => ({ name: entry.name.split('/').pop()!, bytes: entry.encodedBodySize, at: entry.startTime })),
  }));
  await tab.close();
  return result;
}

try {
  // Warm up the browser and the server.
  await launcherDrawn('split', 'loopback');
  await launcherDrawn('single', 'loopback');

  const networks: Network[] = ['loopback', 'Fast 4G', 'Slow 4G'];
  const drawn = new Map<string, number[]>();
  for (const network of networks) {
    const runs = network === 'loopback' ? RUNS * 2 : RUNS;
    for (let run = 0; run < runs; run++) {
      // Interleaved, so a busy moment of the machine falls on both alike.
      for (const build of run % 2 ? (['single', 'split'] as const) : (['split', 'single'] as const)) {
        const key = `${network}/${build}`;
        drawn.set(key, [...(drawn.get(key) ?? []), await launcherDrawn(build, network)]);
      }
    }
  }
  const clicks = new Map<string, { focused: number; ready: number; fetchedBeforeClick: boolean }[]>();
  for (const network of ['Fast 4G', 'Slow 4G'] as Network[]) {
    for (let run = 0; run < RUNS; run++) {
      for (const build of ['split', 'single'] as const) {
        const key = `${network}/${build}`;
        clicks.set(key, [...(clicks.get(key) ?? []), await clickToFocus(build, network)]);
      }
    }
  }
  const alone = await leftAlone();

  // Sizes.
  const whole = first.gzip.length + second.gzip.length;
  const firstShares = ownerShares(first);
  const secondShares = ownerShares(second);
  const singleShares = ownerShares(single);
  const owners = [...OWNERS.map(([name]) => name), OTHER].filter((owner) => firstShares.has(owner) || secondShares.has(owner) || singleShares.has(owner));
  console.log('| Measure | Result | Budget |\n|---|---|---|');
  console.log(`| First part, \`dist/kagent-chat.js\` (draws the chat, takes a question) | ${kb(first.code.length)} minified, **${kb(first.gzip.length)} gzipped** (${bytes(first.gzip.length)}, level 9) | ≤ 15 KB: ${first.gzip.length <= FIRST_PART_BUDGET ? 'met' : 'NOT met'} |`);
  console.log(`| Second part, \`dist/${second.name}\` (request, markdown, sanitizer, citations) | ${kb(second.code.length)} minified, ${kb(second.gzip.length)} gzipped (${bytes(second.gzip.length)}) | fetched on first need or at idle |`);
  console.log(`| Second part with DOMPurify inside, \`dist/${withDomPurify.name}\` (fetched instead of the second part where the browser has no sanitizer of its own) | ${kb(withDomPurify.code.length)} minified, ${kb(withDomPurify.gzip.length)} gzipped (${bytes(withDomPurify.gzip.length)}) | never in Chromium or Firefox |`);
  console.log(`| Everything for a full chat in Chromium and Firefox (both parts, the browser's own sanitizer) | **${kb(whole)} gzipped** (${bytes(whole)}) | ≤ 42 KB: ${whole <= NATIVE_WHOLE_BUDGET ? 'met' : 'NOT met'}; with sessions on below |`);
  const safari = first.gzip.length + withDomPurify.gzip.length;
  console.log(`| Everything for a full chat without a sanitizer of the browser's own (Safari: the first part and the second with DOMPurify) | **${kb(safari)} gzipped** (${bytes(safari)}) | ≤ 50 KB with sessions on (below): ${safari + keeper.gzip.length <= WHOLE_BUDGET ? 'met' : 'NOT met'} |`);
  // A proxy with visitor sessions on adds the session keeper to either.
  console.log(`| The same, from a proxy with visitor sessions on (the session keeper, \`dist/${keeperName}\`, ${bytes(keeper.gzip.length)}, added) | Chromium and Firefox ${kb(whole + keeper.gzip.length)} (${bytes(whole + keeper.gzip.length)}); **Safari ${kb(safari + keeper.gzip.length)}** (${bytes(safari + keeper.gzip.length)}) | ≤ 42 KB (Chromium, Firefox): ${whole + keeper.gzip.length <= NATIVE_WHOLE_BUDGET ? 'met' : 'NOT met'}; ≤ 50 KB (Safari): ${safari + keeper.gzip.length <= WHOLE_BUDGET ? 'met' : 'NOT met'} |`);
  console.log(`| Today's single file from the same source (IIFE, \`KAGENT_SINGLE_FILE=1\`) | ${kb(single.code.length)} minified, ${kb(single.gzip.length)} gzipped (${bytes(single.gzip.length)}) | for comparison |`);
  // Asked for before the load event: before the browser could be idle.
  const beforeIdle = alone.files.filter((file) => file.at < alone.loadAt);
  const beforeIdleBytes = beforeIdle.reduce((sum, file) => sum + file.bytes, 0);
  const later = alone.files.filter((file) => file.at > alone.loadAt);
  console.log(
    `| A bubble page whose visitor does nothing, until the browser is idle | ${beforeIdle.map((file) => `\`${file.name}\` ${bytes(file.bytes)}`).join(', ')} = **${kb(beforeIdleBytes)}**; then, once idle, ${later.map((file) => `\`${file.name}\` ${bytes(file.bytes)} ${(file.at - alone.loadAt).toFixed(1)} ms after the load event`).join(', ') || 'nothing'} | ≤ 15 KB before idle: ${beforeIdleBytes <= FIRST_PART_BUDGET && later.length === 1 ? 'met' : 'NOT met'} |`,
  );

  console.log('\nWho the gzipped bytes belong to (each part\'s share: what its gzipped file loses without it):\n');
  console.log('| | first part | second part | both parts | single file |\n|---|---:|---:|---:|---:|');
  for (const owner of owners) {
    const a = firstShares.get(owner) ?? 0;
    const b = secondShares.get(owner) ?? 0;
    const cell = (count: number) => (count ? bytes(count) : '-');
    console.log(`| ${owner} | ${cell(a)} | ${cell(b)} | ${cell(a + b)} | ${cell(singleShares.get(owner) ?? 0)} |`);
  }

  console.log(`\nFrom the script tag to the launcher drawn (median of ${RUNS} runs, ${RUNS * 2} on loopback; range), cache disabled, builds served gzipped:\n`);
  console.log('| Network | split build (first part) | single file | split / single |\n|---|---|---|---|');
  for (const network of networks) {
    const split = drawn.get(`${network}/split`)!;
    const one = drawn.get(`${network}/single`)!;
    console.log(`| ${network} | ${spread(split)} | ${spread(one)} | ${(median(split) / median(one)).toFixed(2)}× |`);
  }

  console.log(`\nFrom the launcher clicked (the moment it is drawn, second part not cached) to the question box focused, and to the chat ready to answer (median of ${RUNS}):\n`);
  console.log('| Network | split build: question box focused | split build: able to answer (second part here) | single file: focused and able to answer |\n|---|---|---|---|');
  for (const network of ['Fast 4G', 'Slow 4G'] as Network[]) {
    const split = clicks.get(`${network}/split`)!;
    const one = clicks.get(`${network}/single`)!;
    const early = split.filter((run) => run.fetchedBeforeClick).length;
    console.log(`| ${network} | ${spread(split.map((run) => run.focused))} | ${spread(split.map((run) => run.ready))}${early ? ` (in ${early} runs it was fetched before the click)` : ''} | ${spread(one.map((run) => run.focused))} |`);
  }
} finally {
  await browser.close();
  server.close();
}
