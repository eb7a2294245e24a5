// Part of the answer engine, as a Worker of its own (a chunk of its own in the script-tag
// build): solves a visitor session's challenge off the page's main thread. Each worker
// tries the counters `start`, `start + step`... and posts its solution, or null.
import { solveSessionChallenge, type SessionChallenge } from '../../protocol/sessions.js';

addEventListener('message', async (event: MessageEvent<{ challenge: SessionChallenge; start: number; step: number }>) => {
  const { challenge, start, step } = event.data;
  postMessage(await solveSessionChallenge(challenge, { start, step }));
});
