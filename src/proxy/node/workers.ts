// Node: the kagent-proxy command on several cores. One process answers on one
// core; KAGENT_WORKERS starts that many, sharing the port through node:cluster
// (the primary accepts and hands each connection to the next worker in turn).
import cluster, { type Worker } from 'node:cluster';
import { ProxyConfigError, type ProxyOptions } from '../core/index.js';
import { printListening, type Listening } from './listening.js';

/** What a worker tells the primary once it listens: the line the command prints. */
export interface WorkerListening {
  kagentListening: Listening;
}

/**
 * Several workers each count in their own memory, so an in-memory rate limit
 * would let through up to that many times its figure, and a spent challenge
 * could be spent again on another worker: above one worker the counts must
 * live in Redis, or every limit be off and sessions too.
 */
export function checkWorkersCanCount(workers: number, options: ProxyOptions, redisUrl: string | undefined): void {
  if (workers <= 1 || redisUrl) return;
  const counted = [
    options.perAddressLimit !== false && 'KAGENT_RATE_LIMIT_PER_ADDRESS',
    options.perVisitorLimit !== false && 'KAGENT_RATE_LIMIT_PER_VISITOR',
    options.dailyBudget !== undefined && options.dailyBudget !== false && 'KAGENT_DAILY_BUDGET',
    // A session's questions, its one answer at a time and its spent challenges too: a replay would pass on another worker.
    options.sessionSecret !== undefined && 'the visitor sessions (KAGENT_SESSION_SECRET)',
  ].filter(Boolean);
  if (counted.length === 0) return;
  throw new ProxyConfigError(
    `kagent proxy cannot start: KAGENT_WORKERS=${workers} needs KAGENT_REDIS_URL, because each worker would count ${counted.join(', ')} in its own memory and let through up to ${workers} times the limit (or turn those limits off)`,
  );
}

/**
 * Runs the primary: starts `count` workers (this same command), prints one
 * listening line once all of them listen, starts a new worker when one dies,
 * and on SIGINT/SIGTERM stops them all (each finishes its open requests)
 * before exiting. A worker that exits before it listens (a configuration
 * the workers refuse, Redis out of reach) stops the command with code 1.
 */
export function runPrimary(count: number): void {
  let stopping = false;
  const live = new Set<Worker>();
  const listening = new Set<Worker>();
  let announced = false;
  const start = (): void => {
    const worker = cluster.fork();
    live.add(worker);
    worker.on('message', (message: Partial<WorkerListening>) => {
      if (!message || typeof message !== 'object' || !message.kagentListening) return;
      listening.add(worker);
      if (!announced && listening.size === count) {
        announced = true;
        printListening({ ...message.kagentListening, workers: count });
      }
    });
    worker.once('exit', (code, signal) => {
      live.delete(worker);
      const started = listening.delete(worker);
      if (stopping) {
        if (live.size === 0) process.exit();
        return;
      }
      if (!started) {
        // It failed before listening: the others would fail the same way. Its own output says why.
        stop(1);
        return;
      }
      console.error(JSON.stringify({ time: new Date().toISOString(), level: 'error', message: `a worker stopped (${signal ?? `exit code ${code}`}); starting another` }));
      start();
    });
  };
  const stop = (exitCode: number): void => {
    if (stopping) return;
    stopping = true;
    process.exitCode = exitCode;
    if (live.size === 0) process.exit();
    // Each worker's own SIGTERM handler lets its open requests finish; the primary exits after the last.
    for (const worker of live) worker.process.kill('SIGTERM');
  };
  process.on('SIGINT', () => stop(0));
  process.on('SIGTERM', () => stop(0));
  for (let i = 0; i < count; i++) start();
}
