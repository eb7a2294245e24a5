// The three browsers the browser tests run in, all installed from Debian (no test tool downloads one):
// Chromium (puppeteer-core over the DevTools protocol), Firefox ESR (puppeteer-core over WebDriver BiDi)
// and WebKitGTK's MiniBrowser (WebKitWebDriver, under a virtual X display of its own).
import { ChromeLauncher, chromeLauncher } from '@web/test-runner-chrome';
import { WebdriverLauncher } from '@web/test-runner-webdriver';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import * as puppeteer from 'puppeteer-core';
import { findChrome } from './find-chrome.js';

const chromiumArgs = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const install = {
  firefox: 'apt-get install -y --no-install-recommends firefox-esr',
  webkit: 'apt-get install -y --no-install-recommends webkit2gtk-driver xvfb',
};

/** The first existing path of `candidates` (after the environment variable `envName`), or an exit with advice. */
function find(name, envName, candidates) {
  const fromEnv = process.env[envName];
  if (fromEnv) {
    if (existsSync(fromEnv)) return fromEnv;
    fail(`${envName} is set to ${fromEnv}, but no file is there.`, name, envName);
  }
  const found = candidates.find((path) => existsSync(path));
  if (found) return found;
  fail(`No ${name} was found for the browser tests.`, name, envName);
}

function fail(reason, name, envName) {
  console.error(
    `\n${reason}\nInstall it from Debian:  apt-get update && ${install[name]}\n` +
      `or point ${envName} at one, or leave it out:  TEST_BROWSERS=chromium npm run test:browser\n`,
  );
  process.exit(1);
}

/** A free TCP port on 127.0.0.1 (for WebKitWebDriver, which takes a port number, not 0). */
export const freePort = () =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

/** Child processes this run started, ended when it ends however it ends. */
const children = new Set();
const endChildren = () => {
  for (const child of children) child.kill('SIGTERM');
};
process.once('exit', endChildren);
// Twice a loaded CI run's browser part ended with exit code 1 mid-run, printing nothing (no failed test, no error, no
// signal). An exit by process.exit() calls this listener from inside that call: the stack names who made it. The
// runner's own ending (startTestRunner, after its report) is left out.
process.once('exit', (code) => {
  const from = new Error('exit').stack?.split('\n').slice(2, 14).join('\n') ?? '';
  if (code !== 0 && !from.includes('startTestRunner')) console.error(`\nThe browser test runner is exiting with code ${code}, not through its own report; from:\n${from}`);
});
// Said on the way out: a run ended from outside (a stop button, a process manager) reads as a failure otherwise.
const EXIT_CODES = { SIGINT: 130, SIGTERM: 143 };
for (const [signal, code] of Object.entries(EXIT_CODES)) {
  process.once(signal, () => {
    console.error(`\nThe browser tests were ended by ${signal}, from outside the test run.`);
    endChildren();
    process.exit(code);
  });
}

function start(command, args, env) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-2000)));
  return { child, stderr: () => stderr };
}

/** Xvfb on the first free display, which it names itself (`-displayfd`): runs side by side never collide. */
function startDisplay() {
  const { child, stderr } = start(find('webkit', 'XVFB_PATH', ['/usr/bin/Xvfb']), ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp']);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdio[3].on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve({ child, display: `:${out.trim()}` });
    });
    child.once('exit', (code) => reject(new Error(`Xvfb exited (${code}) before naming its display: ${stderr()}`)));
  });
}

/** Waits until WebKitWebDriver answers its status route. */
async function driverReady(port, driver) {
  const end = Date.now() + 30000;
  for (;;) {
    if (driver.child.exitCode !== null) throw new Error(`WebKitWebDriver exited (${driver.child.exitCode}): ${driver.stderr()}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/status`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > end) throw new Error(`WebKitWebDriver did not answer on port ${port}: ${driver.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** WebKitGTK's MiniBrowser through WebKitWebDriver, which the launcher starts (with a display) before the first session. */
class WebKitLauncher extends WebdriverLauncher {
  constructor(driverPath, browserPath) {
    const browserOptions = { binary: browserPath, args: ['--automation'] };
    // webdriverio asks for WebDriver BiDi by default, which WebKitWebDriver does not offer: the session would not match.
    const capabilities = { browserName: 'MiniBrowser', 'webkitgtk:browserOptions': browserOptions, 'wdio:enforceWebDriverClassic': true };
    super({ capabilities, hostname: '127.0.0.1', path: '/', logLevel: 'error' });
    this.driverPath = driverPath;
  }

  async initialize(config, testFiles) {
    await super.initialize(config, testFiles);
    this.name = 'WebKit';
  }

  async createDriverManager() {
    // Its own display unless told to use one (WEBKIT_DISPLAY=:0 to watch the tests run).
    const display = process.env.WEBKIT_DISPLAY ?? (this.xvfb ??= await startDisplay()).display;
    const port = await freePort();
    this.driverProcess = start(this.driverPath, [`--port=${port}`], { DISPLAY: display });
    await driverReady(port, this.driverProcess);
    this.options.port = port;
    return super.createDriverManager();
  }

  /**
   * Types as a person does, each key pressed and released before the next, in one WebDriver request.
   * webdriverio's keys() (the runner's way) presses every key before releasing any, and WebKit drops a key
   * that is already down: "How do I reset my password?" arrived as "How doIresetmypasword?".
   */
  async sendKeys(sessionId, keys) {
    if (keys.length <= 1) return super.sendKeys(sessionId, keys);
    const typing = this.driver.action('key');
    for (const key of keys) typing.down(key).up(key);
    return typing.perform();
  }

  async stop() {
    await super.stop();
    this.driverProcess?.child.kill('SIGTERM');
    this.xvfb?.child.kill('SIGTERM');
  }
}

/**
 * A test page whose navigation may take two minutes, not puppeteer's 30 s: a ceiling for a loaded machine (five
 * browsers and the node tests' leftovers on 2 cores), where Firefox once took over 30 s to load a test file's page.
 */
const patientPage = async ({ context }) => {
  const page = await context.newPage();
  page.setDefaultNavigationTimeout(120_000);
  return page;
};

/** A Chromium of its own (Debian's), driven over the DevTools protocol. */
export const chromiumLauncher = () => chromeLauncher({ launchOptions: { executablePath: findChrome(), args: chromiumArgs }, createPage: patientPage });

/** A WebKit of its own (WebKitGTK's MiniBrowser through WebKitWebDriver, each with its own display). */
export const webkitLauncher = () =>
  new WebKitLauncher(
    find('webkit', 'WEBKIT_DRIVER_PATH', ['/usr/bin/WebKitWebDriver']),
    find('webkit', 'WEBKIT_BROWSER_PATH', ['/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser', '/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser', '/usr/libexec/webkit2gtk-4.1/MiniBrowser']),
  );

/**
 * Firefox ESR over WebDriver BiDi (puppeteer-core), with one repair. Between test files the runner sends the page
 * to about:blank; under load Firefox at times never reports that navigation done (about 1 in 15 loaded runs of the
 * visitor-sessions files in Firefox alone, and in CI: always after every test of the file had passed, the page still
 * answering scripts), and then opens no new page for minutes either, failing the file whose tests had passed and the
 * next one or two. A page not left within `leaveWithin` ms now ends that Firefox, with a warning, and the next file
 * starts a new one.
 */
export class FirefoxLauncher extends ChromeLauncher {
  #leaveWithin;

  constructor({ leaveWithin = 30_000, executablePath = find('firefox', 'FIREFOX_PATH', ['/usr/bin/firefox-esr', '/usr/bin/firefox']) } = {}) {
    super({ browser: 'firefox', headless: true, executablePath }, ({ browser }) => browser.defaultBrowserContext(), patientPage, puppeteer);
    this.#leaveWithin = leaveWithin;
  }

  async stopSession(sessionId) {
    const leaving = super.stopSession(sessionId);
    let timer;
    const stuck = new Promise((resolve) => (timer = setTimeout(resolve, this.#leaveWithin, 'stuck')));
    const result = await Promise.race([leaving, stuck]).finally(() => clearTimeout(timer));
    if (result !== 'stuck') return result;
    // Its navigation fails once the browser is gone: nothing waits on it any more.
    leaving.catch(() => {});
    console.warn(`Firefox did not leave a finished test page for about:blank within ${this.#leaveWithin / 1000} s; ending it, the next test file starts a new Firefox.`);
    this.activePages.delete(sessionId);
    this.inactivePages.length = 0;
    const browser = this.browser;
    this.browser = undefined;
    this.browserContext = undefined;
    // Puppeteer starts Firefox in a process group of its own: its content processes end with it.
    const pid = browser?.process()?.pid;
    try {
      if (pid) process.kill(-pid, 'SIGKILL');
    } catch {
      // Ended already.
    }
    return { testCoverage: undefined };
  }
}

export const firefoxLauncher = (options) => new FirefoxLauncher(options);

/** The launchers for the browsers named in TEST_BROWSERS (comma-separated; all three by default). */
export function launchers() {
  const wanted = (process.env.TEST_BROWSERS ?? 'chromium,firefox,webkit').split(',').map((name) => name.trim().toLowerCase());
  const unknown = wanted.filter((name) => !['chromium', 'firefox', 'webkit'].includes(name));
  if (unknown.length > 0) {
    console.error(`TEST_BROWSERS names ${unknown.join(', ')}; the browsers are chromium, firefox and webkit.`);
    process.exit(1);
  }
  const chromium = wanted.includes('chromium') ? chromiumLauncher() : undefined;
  const firefox = wanted.includes('firefox') ? firefoxLauncher() : undefined;
  const webkit = wanted.includes('webkit') ? webkitLauncher() : undefined;
  return { chromium, firefox, webkit };
}

/**
 * `executeServerCommand('window-size', { width, height })`: the page's viewport
 * at that size in every browser (the runner's own `setViewport` has no WebDriver
 * form). Puppeteer sets the viewport; over WebDriver the window is sized, then
 * grown by what the browser's own toolbar and borders take.
 */
export const windowSizePlugin = {
  name: 'window-size',
  async executeCommand({ command, payload, session }) {
    if (command !== 'window-size') return undefined;
    const { width, height } = payload;
    if (session.browser.type === 'puppeteer') {
      await session.browser.getPage(session.id).setViewport({ width, height });
      return true;
    }
    const driver = session.browser.driver;
    const viewport = () => driver.execute(() => [innerWidth, innerHeight]);
    // WebKit's driver can answer a resize before the page's viewport follows it: each resize is
    // awaited before the viewport is measured again, so one difference is never applied twice.
    const deadline = Date.now() + 15_000;
    let inner = await viewport();
    while (inner[0] !== width || inner[1] !== height) {
      if (Date.now() > deadline) throw new Error(`window-size: the viewport is ${inner.join('x')}, not ${width}x${height}`);
      const outer = await driver.getWindowSize();
      await driver.setWindowSize(outer.width + width - inner[0], outer.height + height - inner[1]);
      const settled = Date.now() + 3_000;
      do inner = await viewport();
      while ((inner[0] !== width || inner[1] !== height) && Date.now() < settled);
    }
    return true;
  },
};
