import { esbuildPlugin } from '@web/dev-server-esbuild';
import { defaultReporter } from '@web/test-runner';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromiumLauncher, freePort, launchers, webkitLauncher, windowSizePlugin } from './scripts/browsers.js';
import { timingReporter } from './scripts/test-timings.js';
import { browserServiceMiddleware } from './test/support/browser-service.ts';
import { HIDE_NATIVE_SANITIZER } from './test/support/csp-page.ts';
import { scriptTagGateMiddleware } from './test/support/script-tag-gate.ts';
import { tailwindMiddleware } from './test/support/tailwind-css.ts';
import { STAND_IN_SCRIPT } from './test/support/turnstile-script-stand-in.ts';
import { serveReact } from './test/fixtures/react/serve-react.js';

const { chromium, firefox, webkit } = launchers();
const others = [firefox, webkit].filter(Boolean);
// A second Chromium for the files only Chromium runs: one browser runs one file at a time, and Chromium, which runs
// every file, would otherwise be the long pole while its tests mostly wait on the network and on events.
const chromiumToo = chromium && chromiumLauncher();
// A second WebKit for about half of the cross-browser files where WebKit runs beside another browser: WebKit was
// the long pole (its files summed 331 s and 309 s in two loaded CI runs, against Chromium's 253 s and 228 s).
const webkitToo = webkit && (chromium || firefox) && webkitLauncher();

/**
 * The files that also run in Firefox and WebKit: the widget's own behaviour on
 * pages (element, markdown, host and framework pages, CSP, modes, failures,
 * the browser's own sanitizer, DOMPurify as built). The rest stay in Chromium: they drive the DevTools protocol
 * (device emulation, a second tab and the back/forward cache, screenshots,
 * colour-scheme emulation for axe), or test what no browser changes (the
 * protocol and client modules, the React wrapper, the built file's
 * loading and spec conformance, already run in every browser by their
 * unbuilt twins; recovery from stored values and refused ids, the chat's own
 * rules, whose storage and requests widget-chat and widget-failures run everywhere).
 */
export const CROSS_BROWSER_FILES = [
  'test/browser/widget-api.test.ts',
  'test/browser/widget-chat.test.ts',
  'test/browser/widget-controllers.test.ts',
  'test/browser/widget-csp.test.ts',
  'test/browser/widget-failures.test.ts',
  'test/browser/widget-feedback.test.ts',
  'test/browser/widget-frameworks.test.ts',
  'test/browser/widget-host.test.ts',
  'test/browser/widget-hostile.test.ts',
  'test/browser/widget-markdown.test.ts',
  'test/browser/widget-markdown-heal.test.ts',
  'test/browser/widget-markdown-stream.test.ts',
  'test/browser/widget-modes.test.ts',
  'test/browser/widget-sanitizer-built.test.ts',
  'test/browser/widget-sanitizers.test.ts',
  'test/browser/widget-sessions.test.ts',
  'test/browser/widget-sessions-hosts.test.ts',
  'test/browser/widget-sessions-turns.test.ts',
  'test/browser/widget-sessions-words.test.ts',
  'test/browser/widget-split-retry.test.ts',
];

/** The cross-browser files the second WebKit runs (about half of WebKit's time in loaded CI); the first runs the rest. */
const SECOND_WEBKIT_FILES = [
  'test/browser/widget-chat.test.ts',
  'test/browser/widget-failures.test.ts',
  'test/browser/widget-frameworks.test.ts',
  'test/browser/widget-markdown-heal.test.ts',
  'test/browser/widget-markdown-stream.test.ts',
  'test/browser/widget-sanitizer-built.test.ts',
  'test/browser/widget-sanitizers.test.ts',
  'test/browser/widget-sessions.test.ts',
  'test/browser/widget-sessions-turns.test.ts',
  'test/browser/widget-sessions-words.test.ts',
];

/** The files named after `--files` (which sets only the default group's files: a group keeps its own list), or undefined. */
function namedFiles() {
  const at = process.argv.indexOf('--files');
  if (at === -1) return undefined;
  const named = [];
  for (const arg of process.argv.slice(at + 1)) {
    if (arg.startsWith('--')) break;
    named.push(arg.replace(/^\.\//, ''));
  }
  return named;
}

/** The cross-browser files to run: all of them, or those named after `--files`. */
function crossBrowserFiles() {
  const named = namedFiles();
  return named ? CROSS_BROWSER_FILES.filter((file) => named.includes(file)) : CROSS_BROWSER_FILES;
}

/** The sanitizer's suites the `dompurify` group runs again with the browser's own sanitizer hidden: all, or those named after `--files`. */
function dompurifyFiles() {
  const named = namedFiles();
  const suite = /^test\/browser\/widget-(hostile|markdown|markdown-[\w-]+|build|csp)\.test\.ts$/;
  return named ? named.filter((file) => suite.test(file)) : ['test/browser/widget-{hostile,markdown,markdown-*,build,csp}.test.ts'];
}

/** The files only Chromium runs, in a Chromium of their own beside the one that runs the cross-browser files; none when `--files` names files (the default group runs those). */
function chromiumOnlyFiles() {
  if (namedFiles()) return [];
  return readdirSync(new URL('./test/browser/', import.meta.url))
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => `test/browser/${name}`)
    .filter((file) => !CROSS_BROWSER_FILES.includes(file));
}

/**
 * `executeServerCommand('widget-screenshot', { name, clip })` from a test:
 * a PNG of the page (or of `clip`), returned as base64 and kept as
 * docs/{name}.png when that file is missing or UPDATE_SCREENSHOTS=1.
 */
const screenshotPlugin = {
  name: 'widget-screenshot',
  async executeCommand({ command, payload, session }) {
    if (command !== 'widget-screenshot') return undefined;
    if (!/^[\w-]+$/.test(payload?.name ?? '')) throw new Error('widget-screenshot needs a plain name');
    const page = session.browser.getPage(session.id);
    const png = await page.screenshot({ type: 'png', ...(payload.clip ? { clip: payload.clip } : {}) });
    const path = fileURLToPath(new URL(`./docs/${payload.name}.png`, import.meta.url));
    if (process.env.UPDATE_SCREENSHOTS === '1' || !existsSync(path)) writeFileSync(path, png);
    return Buffer.from(png).toString('base64');
  },
};

/**
 * `executeServerCommand('emulate-device', { width, height, mobile })`: the
 * page's window as a phone sees it (`mobile`: a page without
 * `<meta name="viewport">` is laid out 980 pixels wide and drawn zoomed
 * out, touch on) or as a desktop window, without reloading the page;
 * `{ reset: true }` ends the emulation.
 */
const devicePlugin = {
  name: 'emulate-device',
  sessions: new WeakMap(),
  async executeCommand({ command, payload, session }) {
    if (command !== 'emulate-device') return undefined;
    const page = session.browser.getPage(session.id);
    // Straight to the DevTools protocol: puppeteer's setViewport reloads the page when `mobile` changes.
    let cdp = this.sessions.get(page);
    if (!cdp) this.sessions.set(page, (cdp = await page.createCDPSession()));
    if (payload?.reset) {
      await cdp.send('Emulation.clearDeviceMetricsOverride');
      await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: false });
      return true;
    }
    const mobile = payload?.mobile === true;
    await cdp.send('Emulation.setDeviceMetricsOverride', { width: payload.width, height: payload.height, deviceScaleFactor: 1, mobile });
    await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: mobile, maxTouchPoints: mobile ? 5 : 1 });
    return true;
  },
};

/**
 * `executeServerCommand('second-page', { action, ... })`: a second tab the
 * test drives, for what a test cannot do to its own page (navigate away and
 * come back). Actions:
 * - `open` `{ url }`: loads `url` in a new tab; returns `{ id }`.
 * - `evaluate` `{ id, expression }`: the expression's value in that tab, as
 *   `{ value }`, or `{ error }` while the tab is between documents.
 * - `wait-for` `{ id, expression, timeout }`: polls until the expression is
 *   truthy (across navigations) and returns `{ value }`; `{ error }` after
 *   `timeout` ms (default 5000). Polled here, not in the test's page, whose
 *   timers a browser may slow while the second tab is in front.
 * - `goto` `{ id, url }`: navigates and waits for the load.
 * - `back` `{ id }`: goes back one entry without waiting (the test waits for
 *   what it expects); returns `{ ok: true }`.
 * - `not-restored` `{ id, wait }`: why Chromium did not restore a page from the
 *   back/forward cache (`Page.backForwardCacheNotUsed`), `[]` if it did. With
 *   `wait` (ms), waits that long for a reason to arrive: the protocol orders
 *   that event with nothing else, so it may come after the new page's load.
 * - `close` `{ id }`.
 */
const secondPagePlugin = {
  name: 'second-page',
  tabs: new Map(),
  nextId: 1,
  async executeCommand({ command, payload, session }) {
    if (command !== 'second-page') return undefined;
    const { action, id } = payload ?? {};
    if (action === 'open') {
      const page = await session.browser.getPage(session.id).browserContext().newPage();
      const cdp = await page.createCDPSession();
      const tab = { page, cdp, notRestored: [], onNotRestored: new Set() };
      cdp.on('Page.backForwardCacheNotUsed', (event) => {
        tab.notRestored.push(...event.notRestoredExplanations.map((e) => `${e.type}: ${e.reason}`));
        for (const settle of tab.onNotRestored) settle();
      });
      await cdp.send('Page.enable');
      await page.goto(new URL(payload.url, session.browser.getPage(session.id).url()).href, { waitUntil: 'load' });
      const tabId = this.nextId++;
      this.tabs.set(tabId, tab);
      return { id: tabId };
    }
    const tab = this.tabs.get(id);
    if (!tab) throw new Error(`second-page: no tab ${id}`);
    switch (action) {
      case 'evaluate':
        try {
          return { value: await tab.page.evaluate(payload.expression) };
        } catch (error) {
          return { error: String(error?.message ?? error) };
        }
      case 'wait-for': {
        const end = Date.now() + (payload.timeout ?? 5000);
        let last = 'never evaluated';
        for (;;) {
          try {
            const value = await tab.page.evaluate(payload.expression);
            if (value) return { value };
            last = JSON.stringify(value);
          } catch (error) {
            last = String(error?.message ?? error);
          }
          if (Date.now() > end) return { error: `timed out waiting for ${payload.expression} (last: ${last})` };
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      }
      case 'goto':
        await tab.page.goto(new URL(payload.url, tab.page.url()).href, { waitUntil: 'load' });
        return { ok: true };
      case 'back': {
        tab.notRestored = [];
        // Over the DevTools protocol: puppeteer's goBack() waits for a load that a page restored from the cache never fires.
        const { currentIndex, entries } = await tab.cdp.send('Page.getNavigationHistory');
        await tab.cdp.send('Page.navigateToHistoryEntry', { entryId: entries[currentIndex - 1].id });
        return { ok: true };
      }
      case 'not-restored': {
        if (tab.notRestored.length === 0 && payload.wait > 0) {
          await new Promise((resolve) => {
            const settle = () => {
              clearTimeout(timer);
              tab.onNotRestored.delete(settle);
              resolve();
            };
            const timer = setTimeout(settle, payload.wait);
            tab.onNotRestored.add(settle);
          });
        }
        return tab.notRestored;
      }
      case 'close':
        this.tabs.delete(id);
        await tab.page.close();
        await session.browser.getPage(session.id).bringToFront();
        return { ok: true };
      default:
        throw new Error(`second-page: no action ${action}`);
    }
  },
};

/**
 * The chat's sources load Cloudflare Turnstile's script from Cloudflare, which cannot be reached here: as this runner
 * serves them, they load the stand-in (test/support/turnstile-script-stand-in.ts) instead. A test hook of the runner
 * only, so nothing in the shipped chat can point it elsewhere (only Cloudflare may serve that script).
 */
const turnstileStandInPlugin = {
  name: 'turnstile-stand-in',
  transform(context) {
    if (context.path !== '/src/widget/answer-engine/sessions/human-check.ts') return undefined;
    // An absolute address, as Cloudflare's is: the page's own origin.
    const body = context.body.replace('https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit', new URL(STAND_IN_SCRIPT, context.origin).href);
    if (body === context.body) throw new Error("turnstile-stand-in: human-check.ts no longer names Cloudflare's script address");
    return { body };
  },
};

/** `new Worker(new URL('./x.worker.js', import.meta.url))` in an unbuilt module asks for the `.js` its build makes: the runner serves the `.ts`, compiled. */
function workerSourceMiddleware(context, next) {
  if (/^\/src\/[\w/.-]+\.worker\.js$/.test(context.path)) context.url = context.url.replace(/\.worker\.js(?=$|\?)/, '.worker.ts');
  return next();
}

/** The runner's page, with Lit's development build quiet; `before` runs first (a group's own setup). */
const runnerHtml = (before = '') => (testFramework) =>
  `<!DOCTYPE html><html><head>${before}<script>window.litIssuedWarnings = new Set(['dev-mode']);</script></head><body><script type="module" src="${testFramework}"></script></body></html>`;

export default {
  nodeResolve: true,
  // A free port from the system: the runner's own search starts at 8000, where two runs side by side collide.
  port: await freePort(),
  // The widget's one-line warning for each failure (`kagent-chat: <kind> (<status>): …`), which the failure tests provoke on purpose; any other log is shown.
  filterBrowserLogs: ({ args }) => !(typeof args[0] === 'string' && /^kagent-chat: [a-z-]+(?: \(\d+\))?: /.test(args[0])),
  // Lit's development build (its checks stay on) without its "Lit is in dev mode" notice in every test file's log.
  testRunnerHtml: runnerHtml(),
  // Real HTTP routes the tests call on this same origin.
  // /split/...: the script-tag build with its second part served, failed or held as a test says.
  // /frameworks/tailwind.css: Tailwind's CSS for the framework pages, made by its compiler.
  // /src/**/*.worker.js: a Worker's address in the sources names its compiled file; unbuilt, that is the TypeScript file.
  middleware: [browserServiceMiddleware(), scriptTagGateMiddleware(new URL('./dist/', import.meta.url)), tailwindMiddleware(), workerSourceMiddleware],
  concurrency: 1,
  // The five browsers side by side (one file each at a time): their tests mostly wait on the network and on events.
  concurrentBrowsers: 5,
  reporters: [defaultReporter(), ...(process.env.TEST_TIMINGS === '1' ? [timingReporter()] : [])],
  // A ceiling for a loaded machine (another test run beside this one), not an expectation: tests wait on events.
  testFramework: { config: { timeout: 60000 } },
  // The same for a whole file, whose results come at its end (a host suite takes minutes in WebKit under load).
  testsFinishTimeout: 600000,
  // And for a file's page to load and start its tests: WebKit, beside two other browsers solving visitor sessions'
  // challenges on 2 cores, once took over the default 20 s to start widget-markdown-stream.test.ts in CI.
  testsStartTimeout: 120000,
  // And for a browser to open a test page (Firefox, one of five browsers on 2 cores under load, once took over 30 s).
  browserStartTimeout: 120000,
  plugins: [
    windowSizePlugin,
    screenshotPlugin,
    devicePlugin,
    secondPagePlugin,
    turnstileStandInPlugin,
    // `react` and `react-dom/client` (CommonJS) as modules, for widget-react.test.ts.
    serveReact(fileURLToPath(new URL('.', import.meta.url))),
    // The tsconfig path makes esbuild honour Lit's legacy decorators.
    esbuildPlugin({ ts: true, target: 'es2022', tsconfig: fileURLToPath(new URL('./tsconfig.json', import.meta.url)) }),
  ],
  // Every file in Chromium (the cross-browser ones in one, the rest in a second); the cross-browser ones also in
  // Firefox and WebKit (split between two WebKits), as groups (TEST_BROWSERS picks browsers).
  files: crossBrowserFiles(),
  browsers: [chromium ?? others[0]],
  groups: [
    ...(chromium ? [{ name: 'chromium-only', files: chromiumOnlyFiles(), browsers: [chromiumToo] }] : []),
    ...(chromium ? others : others.slice(1)).map((launcher) => ({
      name: launcher === firefox ? 'firefox' : 'webkit',
      files: launcher === webkit && webkitToo ? crossBrowserFiles().filter((file) => !SECOND_WEBKIT_FILES.includes(file)) : crossBrowserFiles(),
      browsers: [launcher],
    })),
    ...(webkitToo ? [{ name: 'webkit-2', files: crossBrowserFiles().filter((file) => SECOND_WEBKIT_FILES.includes(file)), browsers: [webkitToo] }] : []),
    // The sanitizer's suites (XSS, markdown, the built file, CSP and Trusted Types) once more with the browser's own
    // sanitizer hidden, as in a browser that has none (Safari today): the chat then sanitizes with DOMPurify.
    ...(chromium
      ? [{ name: 'dompurify', files: dompurifyFiles(), browsers: [chromiumToo], testRunnerHtml: runnerHtml(`<script>${HIDE_NATIVE_SANITIZER}</script>`) }]
      : []),
  ].filter((group) => group.files.length > 0),
};
