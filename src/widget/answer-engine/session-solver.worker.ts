// Part of the answer engine, as a Worker of its own (a chunk of its own in the script-tag
// build): solves a visitor session's challenge off the page's main thread. Each worker
// tries the counters `start`, `start + step`... and posts its solution, or null.
import { solveSessionChallenge } from '../../protocol/session-challenge.js';
import type { SessionChallenge } from '../../protocol/sessions.js';

/** Keys derived at once in each worker: the browser derives them on threads of its own, so one waiting key does not idle the search. */
const LANES = 4;

addEventListener('message', async (event: MessageEvent<{ challenge: SessionChallenge; start: number; step: number }>) => {
  const { challenge, start, step } = event.data;
  const found = new AbortController();
  const lanes = Array.from({ length: LANES }, (_, lane) =>
    solveSessionChallenge(challenge, { start: start + lane * step, step: step * LANES, signal: found.signal }).then((solution) => {
      if (solution) found.abort();
      return solution;
    }),
  );
  postMessage((await Promise.all(lanes)).find(Boolean) ?? null);
});
