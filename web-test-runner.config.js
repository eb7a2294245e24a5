import { esbuildPlugin } from '@web/dev-server-esbuild';
import { chromeLauncher } from '@web/test-runner-chrome';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { findChrome } from './scripts/find-chrome.js';
import { browserServiceMiddleware } from './test/support/browser-service.ts';
import { serveReact } from './test/fixtures/react/serve-react.js';

const executablePath = findChrome();

/** A free port from the system: the runner's own search starts at 8000, where two runs side by side collide. */
const freePort = () =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

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

export default {
  files: ['test/browser/**/*.test.ts'],
  nodeResolve: true,
  port: await freePort(),
  // The widget's one-line warning for each failure (`kagent-chat: <kind> (<status>): …`), which the failure tests provoke on purpose; any other log is shown.
  filterBrowserLogs: ({ args }) => !(typeof args[0] === 'string' && /^kagent-chat: [a-z-]+(?: \(\d+\))?: /.test(args[0])),
  // Lit's development build (its checks stay on) without its "Lit is in dev mode" notice in every test file's log.
  testRunnerHtml: (testFramework) =>
    `<!DOCTYPE html><html><head><script>window.litIssuedWarnings = new Set(['dev-mode']);</script></head><body><script type="module" src="${testFramework}"></script></body></html>`,
  // Real HTTP routes the tests call on this same origin.
  middleware: [browserServiceMiddleware()],
  concurrency: 1,
  // A ceiling for a loaded machine (another test run beside this one), not an expectation: tests wait on events.
  testFramework: { config: { timeout: 60000 } },
  plugins: [
    screenshotPlugin,
    // `react` and `react-dom/client` (CommonJS) as modules, for widget-react.test.ts.
    serveReact(fileURLToPath(new URL('.', import.meta.url))),
    // The tsconfig path makes esbuild honour Lit's legacy decorators.
    esbuildPlugin({ ts: true, target: 'es2022', tsconfig: fileURLToPath(new URL('./tsconfig.json', import.meta.url)) }),
  ],
  browsers: [
    chromeLauncher({
      launchOptions: {
        executablePath,
        args: [
          '--headless=new',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-dev-shm-usage',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      },
    }),
  ],
};
