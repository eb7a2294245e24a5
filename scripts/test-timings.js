// A web-test-runner reporter that prints how long each test file took in each
// browser (from its start to its results), slowest first, when the run ends:
// what to look at when the browser tests get slow. On with TEST_TIMINGS=1.
import { relative } from 'node:path';

export function timingReporter() {
  const began = new Map();
  const took = [];
  return {
    start({ sessions }) {
      sessions.on('session-status-updated', (session) => {
        const key = session.id;
        if (session.status === 'INITIALIZING') began.set(key, performance.now());
        if (session.status === 'FINISHED' && began.has(key)) {
          // A group of its own (a second Chromium, the DOMPurify run) is named beside its browser.
          const group = session.group?.name && session.group.name !== 'default' ? `/${session.group.name}` : '';
          took.push({ browser: `${session.browser.name}${group}`, file: relative(process.cwd(), session.testFile), seconds: (performance.now() - began.get(key)) / 1000 });
          began.delete(key);
        }
      });
    },
    stop() {
      const byBrowser = new Map();
      for (const { browser, seconds } of took) byBrowser.set(browser, (byBrowser.get(browser) ?? 0) + seconds);
      const lines = [...took].sort((a, b) => b.seconds - a.seconds).map(({ browser, file, seconds }) => `${seconds.toFixed(1).padStart(7)} s  ${browser.padEnd(22)} ${file}`);
      const totals = [...byBrowser].map(([browser, seconds]) => `${browser} ${seconds.toFixed(0)} s`).join(', ');
      process.stdout.write(`\nTime per test file (TEST_TIMINGS=1), slowest first; sum per browser: ${totals}\n${lines.join('\n')}\n`);
    },
  };
}
