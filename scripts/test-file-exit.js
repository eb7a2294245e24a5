// Loaded into each node test file's process (`--import`, scripts/test-node.ts): once the file's tests and hooks have
// run, the process ends within a few seconds even if something a failed test left behind (a server, a child
// process, a socket) would keep it alive. `node --test` waits for every file's process to exit, so one such leftover
// held the whole run for good (seen in a loaded CI run). Node's own --test-force-exit does this too, but also ends
// the runner itself before its reporters have printed their last lines. Plain JavaScript: loaded before tsx.
import { after } from 'node:test';

// A test file's own process (started by node --test), not the runner, nor a process a test starts.
if (process.env.NODE_TEST_CONTEXT && /\.test\.[cm]?[jt]s$/.test(process.argv[1] ?? '')) {
  after(() => {
    // Long enough for the file's results to reach the runner; not referenced, so a file that ends by itself is not held.
    setTimeout(() => {
      console.error(`${process.argv[1]}: its tests are done but something they started still runs; ending the file's process.`);
      process.exit();
    }, 5000).unref();
  });
}
