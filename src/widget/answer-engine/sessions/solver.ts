// Part of the answer engine (the chat's second part): solving a visitor session's
// proof-of-work challenge without holding up the page.
import { solveSessionChallenge, webCryptoPbkdf2, type SessionChallenge, type SessionSolution } from '../../../protocol/sessions/index.js';
import type { KeeperNeeds } from './keeper-needs.js';

/** Where a challenge was solved: in Workers, or in slices on the main thread where no Worker may run. */
export type SolvedBy = 'worker' | 'main-thread';

/** What the page asks of a solver Worker: the parts `start`, `start + step`... of a challenge's `challenges`. */
interface SolverTask {
  challenges: SessionChallenge[];
  start: number;
  step: number;
}

/** Longest the main-thread solver holds the thread before letting the page paint and handle input. */
const SLICE_MS = 8;

/**
 * Keys derived at once by each solver: the browser derives them on threads of its own (Chromium on one per page,
 * whichever thread asks), so one waiting key does not idle the search. Measured in a Worker under 4x CPU throttling:
 * about half the time of one at a time.
 */
const LANES = 4;

/** Solvers side by side: one per core but one (the page's own), at least one, at most four. */
const parallel = () => Math.max(1, Math.min(4, (navigator.hardwareConcurrency || 2) - 1));

/** Set once a Worker could not run on this page (its policy, or its script's origin): later challenges go straight to the main thread. */
let workersRefused = false;

/**
 * Whether this module is also its solver Worker's script. The script-tag build sets it (vite.config.ts,
 * `keeperSolvesInItsWorker`) and starts the Worker from the keeper's own chunk, which the page has just fetched: no
 * file of its own to fetch first. A bundler that builds the chat from npm gets solver.worker.ts as the
 * Worker's chunk instead, and this stays false.
 */
const SOLVER_IN_THIS_FILE = false;

/**
 * Solves `task`'s parts one after another, each in `LANES` lanes, until done or `signal` aborts (then `null`); the
 * solutions at their parts' places. `deriveKey` as for the protocol's solver.
 */
export async function solveParts({ challenges, start, step }: SolverTask, signal?: AbortSignal, deriveKey?: typeof webCryptoPbkdf2): Promise<SessionSolution[] | null> {
  const solutions: SessionSolution[] = [];
  for (let part = start; part < challenges.length; part += step) {
    // Stopped while the last part's other lanes finished their keys: its listener has fired already.
    if (signal?.aborted) return null;
    const found = new AbortController();
    const stop = () => found.abort();
    signal?.addEventListener('abort', stop);
    const lanes = Array.from({ length: LANES }, (_, lane) =>
      solveSessionChallenge(challenges[part]!, { start: lane, step: LANES, signal: found.signal, deriveKey }).then((solution) => {
        if (solution) found.abort();
        return solution;
      }),
    );
    const solution = (await Promise.all(lanes)).find(Boolean);
    signal?.removeEventListener('abort', stop);
    if (!solution) return null;
    solutions[part] = solution;
  }
  return solutions;
}

/** A solver Worker's answer to the page: the solutions of the parts it was given, or null. */
export async function answerInWorker(event: MessageEvent<SolverTask>): Promise<void> {
  postMessage(await solveParts(event.data));
}

if (SOLVER_IN_THIS_FILE && inWorker()) addEventListener('message', answerInWorker);

function inWorker(): boolean {
  const Scope = (globalThis as { WorkerGlobalScope?: abstract new () => unknown }).WorkerGlobalScope;
  return typeof Scope === 'function' && globalThis instanceof Scope;
}

/**
 * Solves a challenge's parts in Workers (off the main thread), each Worker its
 * share of the parts one after another, with no round trip through the page
 * between parts (the page's thread is at its busiest as it loads); where none
 * may run (a `worker-src` that leaves out the chat's script, a script from
 * another origin, a construction error, a worker's error event), in small
 * slices on the main thread. Resolves with `null` once `signal` aborts.
 */
export async function solveChallenge(challenges: SessionChallenge[], signal: AbortSignal, { nextTask, trustedScriptUrl }: Pick<KeeperNeeds, 'nextTask' | 'trustedScriptUrl'>): Promise<{ solutions: SessionSolution[] | null; by: SolvedBy }> {
  if (!workersRefused) {
    const solutions = await solveInWorkers(challenges, signal, trustedScriptUrl);
    if (solutions !== undefined) return { solutions, by: 'worker' };
    workersRefused = true;
  }
  // The same search on the main thread: each key is derived asynchronously, and the thread is given back every few milliseconds.
  let sliceStart = performance.now();
  const solutions = await solveParts({ challenges, start: 0, step: 1 }, signal, async (...args) => {
    if (performance.now() - sliceStart >= SLICE_MS) {
      await nextTask();
      sliceStart = performance.now();
    }
    return webCryptoPbkdf2(...args);
  });
  return { solutions, by: 'main-thread' };
}

/** `undefined` when the Workers could not run (the caller then solves on the main thread). */
function solveInWorkers(challenges: SessionChallenge[], signal: AbortSignal, trustedScriptUrl: KeeperNeeds['trustedScriptUrl']): Promise<SessionSolution[] | null | undefined> {
  const step = parallel();
  const workers: Worker[] = [];
  const solutions: SessionSolution[] = [];
  return new Promise<SessionSolution[] | null | undefined>((resolve) => {
    let unsolved = step;
    const settle = (value: SessionSolution[] | null | undefined) => {
      for (const worker of workers) worker.terminate();
      signal.removeEventListener('abort', stop);
      resolve(value);
    };
    const stop = () => settle(null);
    if (signal.aborted) return stop();
    signal.addEventListener('abort', stop);
    try {
      for (let start = 0; start < step; start++) {
        const worker = startWorker(trustedScriptUrl);
        workers.push(worker);
        // Blocked by the page's policy, or its script failed to load or run: solve on the main thread instead.
        worker.onerror = (event) => {
          event.preventDefault();
          settle(undefined);
        };
        worker.onmessage = (event: MessageEvent<SessionSolution[] | null>) => {
          if (!event.data) return settle(null);
          Object.assign(solutions, event.data);
          if (--unsolved === 0) settle(solutions);
        };
        worker.postMessage({ challenges, start, step } satisfies SolverTask);
      }
    } catch {
      // new Worker() refused outright (a script from another origin; some browsers' policy checks).
      settle(undefined);
    }
  });
}

function startWorker(trustedScriptUrl: KeeperNeeds['trustedScriptUrl']): Worker {
  // A Worker whose address Trusted Types accept where a page enforces them (the chat's policy vouches for it);
  // made here, not at load, since a server that imports the chat has no Worker.
  const Worker = class extends globalThis.Worker {
    constructor(url: URL, options: WorkerOptions) {
      super(trustedScriptUrl(url) as URL, options);
    }
  };
  // Spelled `new Worker(new URL(..., import.meta.url))` so that a bundler builds the solver as a Worker chunk of its
  // own; the script-tag build writes the address as this file's own (`SOLVER_IN_THIS_FILE`).
  return new Worker(new URL('./solver.worker.js', import.meta.url), { type: 'module', name: 'kagent-chat session solver' });
}
