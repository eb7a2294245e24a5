// Preloaded into the emulator's process by the hostile-files bench (`node --import`): notes the
// longest stretch its main thread worked without giving its event loop a turn, counted on a
// core (the thread's scheduler statistics, Linux), so a loaded machine that leaves the thread
// waiting for a core does not count. A timer due every 2 ms marks the turns. On SIGUSR2 the
// longest stretch since the last one is written to stderr as `thread-stretch <ms on a core>
// <ms by the clock>` and the count starts again.
import { existsSync, readFileSync } from 'node:fs';

const schedstat = `/proc/self/task/${process.pid}/schedstat`;
if (existsSync(schedstat)) {
  const onCore = () => Number(readFileSync(schedstat, 'utf8').split(' ')[0]) / 1e6;
  let lastCore = onCore();
  let lastClock = performance.now();
  let longestCore = 0;
  let longestClock = 0;
  setInterval(() => {
    const core = onCore();
    const clock = performance.now();
    longestCore = Math.max(longestCore, core - lastCore);
    longestClock = Math.max(longestClock, clock - lastClock);
    lastCore = core;
    lastClock = clock;
  }, 2).unref();
  process.on('SIGUSR2', () => {
    process.stderr.write(`thread-stretch ${longestCore.toFixed(1)} ${longestClock.toFixed(1)}\n`);
    longestCore = 0;
    longestClock = 0;
  });
}
