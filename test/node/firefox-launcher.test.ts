// The browser tests' Firefox (scripts/browsers.js): a finished test file's page that Firefox cannot leave for
// about:blank ends that Firefox, and the next file gets a new one, instead of failing a file whose tests all passed
// and the files after it (seen under load in CI). Here the page cannot be left on purpose: its beforeunload handler
// never returns.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { after, test } from 'node:test';
import { FirefoxLauncher } from '../../scripts/browsers.js';
import { listen } from '../support/http.js';

const page = (title: string, stuck: boolean) =>
  new Response(`<!doctype html><title>${title}</title><script>${stuck ? "addEventListener('beforeunload', () => { for (;;); });" : ''}</script>`, { headers: { 'content-type': 'text/html' } });

const server = await listen((request) => {
  const { pathname } = new URL(request.url);
  return pathname === '/stuck' ? page('stuck', true) : page('next', false);
});
after(() => server.close());

/** The processes of the process group `pgid` still running (an ended one waiting to be reaped is not). */
const running = (pgid: number) =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      try {
        // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so read after its last ')'.
        const [state, , group] = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1)!.split(' ');
        return Number(group) === pgid && state !== 'Z' ? [pid] : [];
      } catch {
        return [];
      }
    });

test('a page Firefox cannot leave ends that Firefox with a warning; the next test file opens in a new Firefox', async (t) => {
  const launcher = new FirefoxLauncher({ leaveWithin: 5_000 });
  t.after(() => launcher.stop());
  const warnings: string[] = [];
  t.mock.method(console, 'warn', (...args: unknown[]) => void warnings.push(args.join(' ')));
  await launcher.initialize({} as never, []);

  await launcher.startSession('stuck', `${server.url}/stuck`);
  const firefox = launcher.browser!.process()!;
  const first = firefox.pid!;
  const ended = firefox.exitCode !== null || firefox.signalCode !== null ? Promise.resolve() : once(firefox, 'exit');
  // Resolves, as a file whose page was left does: the file's own results stand.
  assert.deepEqual(await launcher.stopSession('stuck'), { testCoverage: undefined });
  assert.match(warnings.join('\n'), /Firefox did not leave a finished test page for about:blank within 5 s/);
  await ended;
  assert.deepEqual(running(first), [], 'the stuck Firefox and its content processes are gone');

  await launcher.startSession('next', `${server.url}/next`);
  assert.notEqual(launcher.browser!.process()!.pid, first);
  assert.equal(launcher.getBrowserUrl('next'), `${server.url}/next`);
  // A page that can be left is left as before, with no warning.
  warnings.length = 0;
  await launcher.stopSession('next');
  assert.deepEqual(warnings, []);
});
