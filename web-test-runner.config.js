import { esbuildPlugin } from '@web/dev-server-esbuild';
import { chromeLauncher } from '@web/test-runner-chrome';
import { fileURLToPath } from 'node:url';
import { findChrome } from './scripts/find-chrome.js';
import { browserServiceMiddleware } from './test/support/browser-service.ts';

const executablePath = findChrome();

export default {
  files: ['test/browser/**/*.test.ts'],
  nodeResolve: true,
  // Real HTTP routes the tests call on this same origin.
  middleware: [browserServiceMiddleware()],
  concurrency: 1,
  testFramework: { config: { timeout: 10000 } },
  plugins: [
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
