import { Worker } from 'node:worker_threads';
import type { ExtractedDocument } from './document.js';
import { IngestError, reasonOf } from './errors.js';
import type { UploadedFile } from './extract.js';
import type { ExtractReply, ExtractRequest } from './extract-worker.js';
import { runTask, type ExtractTask, type SplitDocument, type TaskResult } from './tasks.js';
import { DEFAULT_TEXT_LIMITS, type TextLimits } from './text-limits.js';

/** Bounds on reading one uploaded file. */
export interface ExtractLimits extends TextLimits {
  /** Give up on a file that takes longer than this to read (default 60 s). */
  timeoutMs: number;
  /** Refuse files larger than this (default 100 MB). */
  maxFileBytes: number;
  /**
   * Memory a reader may use (default 1024 MB): its heap, and the growth of the process's
   * memory while it reads (buffers a parser allocates live outside the heap). A file needing
   * more is refused.
   */
  maxMemoryMb: number;
}

export const DEFAULT_EXTRACT_LIMITS: ExtractLimits = { ...DEFAULT_TEXT_LIMITS, timeoutMs: 60_000, maxFileBytes: 100 * 1024 * 1024, maxMemoryMb: 1024 };

// Two cores on the machines this runs on; more parallel parsers would only compete with the server.
const MAX_WORKERS = 2;
// An idle worker keeps its loaded parsers this long for the next upload, then ends.
const IDLE_MS = 15_000;
// Texts up to this many characters are split on the caller's thread (about 2 ms of work).
const SPLIT_HERE_CHARS = 64 * 1024;
// How often the process's memory is sampled while readers run.
const MEMORY_CHECK_MS = 100;

/**
 * The readable text of an uploaded file, page by page. Parsing runs in a worker thread, so a
 * file that takes too long or needs too much memory is stopped and refused without affecting
 * the caller. Throws `IngestError` with the reason; never anything else.
 */
export async function extractDocument(file: UploadedFile, limits: Partial<ExtractLimits> = {}): Promise<ExtractedDocument> {
  const result = await runBounded({ kind: 'extract', file, limits: textLimits(limits) }, file, limits);
  if (result.kind !== 'document') throw new IngestError('could not read the file: the reader answered out of turn');
  return result.document;
}

/** Reads an uploaded file and splits its text into fragments, both off the caller's thread, under the same bounds. */
export async function extractFragments(file: UploadedFile, limits: Partial<ExtractLimits> = {}): Promise<SplitDocument> {
  const result = await runBounded({ kind: 'fragments', file, limits: textLimits(limits) }, file, limits);
  if (result.kind !== 'split') throw new IngestError('could not read the file: the reader answered out of turn');
  return result.split;
}

/** Splits a document (a fetched web page) into fragments off the caller's thread. */
export async function splitDocument(document: ExtractedDocument, limits: Partial<ExtractLimits> = {}): Promise<SplitDocument> {
  const { timeoutMs, maxMemoryMb } = { ...DEFAULT_EXTRACT_LIMITS, ...limits };
  const task: ExtractTask = { kind: 'split', document };
  // A short text is split here in a millisecond or two, rather than waiting for a reader that
  // two slow files may hold for up to their time limit (a document upsert waits on this split).
  const short = document.pages.reduce((sum, page) => sum + page.text.length, 0) <= SPLIT_HERE_CHARS;
  const result = workersUnavailable || short ? await runTask(task) : await pool.run(task, timeoutMs, maxMemoryMb);
  if (result.kind !== 'split') throw new IngestError('could not split the text: the reader answered out of turn');
  return result.split;
}

function textLimits(limits: Partial<ExtractLimits>): TextLimits {
  return { maxTextChars: limits.maxTextChars ?? DEFAULT_TEXT_LIMITS.maxTextChars, maxPages: limits.maxPages ?? DEFAULT_TEXT_LIMITS.maxPages };
}

async function runBounded(task: ExtractTask, file: UploadedFile, limits: Partial<ExtractLimits>): Promise<TaskResult> {
  const { timeoutMs, maxFileBytes, maxMemoryMb } = { ...DEFAULT_EXTRACT_LIMITS, ...limits };
  if (file.bytes.byteLength > maxFileBytes) {
    throw new IngestError(`the file is ${megabytes(file.bytes.byteLength)} MB, more than the ${megabytes(maxFileBytes)} MB allowed`);
  }
  if (workersUnavailable) return runTask(task);
  return pool.run(task, timeoutMs, maxMemoryMb);
}

interface Job {
  task: ExtractTask;
  timeoutMs: number;
  memoryMb: number;
  /** Run alone: it went over the memory cap while another job ran beside it. */
  alone: boolean;
  resolve(result: TaskResult): void;
  reject(error: unknown): void;
}

interface PooledWorker {
  worker: Worker;
  memoryMb: number;
  job?: Job & { id: number; timer: NodeJS.Timeout };
  idleTimer?: NodeJS.Timeout;
}

let workersUnavailable = false;
let nextId = 1;

// Built, the worker is the .js file beside this one. Run from TypeScript source, Node 20 does not
// pass the tsx loader on to worker threads, so the worker registers it before loading the .ts file.
const fromSource = import.meta.url.endsWith('.ts');
const workerUrl = new URL(fromSource ? './extract-worker.ts' : './extract-worker.js', import.meta.url);

function startWorker(memoryMb: number): Worker {
  const options = { resourceLimits: { maxOldGenerationSizeMb: memoryMb } };
  if (!fromSource) return new Worker(workerUrl, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(workerUrl.href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}

class WorkerPool {
  private readonly workers = new Set<PooledWorker>();
  private readonly queue: Job[] = [];
  private memoryTimer: NodeJS.Timeout | undefined;
  /** The process's memory when the readers now running started from none. */
  private baselineRss = 0;

  run(task: ExtractTask, timeoutMs: number, memoryMb: number): Promise<TaskResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ task, timeoutMs, memoryMb, alone: false, resolve, reject });
      this.dispatch();
    });
  }

  private busy(): PooledWorker[] {
    return [...this.workers].filter((candidate) => candidate.job);
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const job = this.queue[0]!;
      const busy = this.busy();
      // A job that must run alone waits for the others; nothing starts beside it.
      if (busy.some((pooled) => pooled.job!.alone)) return;
      if (job.alone && busy.length > 0) return;
      let worker = [...this.workers].find((candidate) => !candidate.job && candidate.memoryMb === job.memoryMb);
      if (!worker && this.workers.size >= MAX_WORKERS) {
        // Make room by retiring an idle worker with another memory limit, else wait for one to finish.
        const idle = [...this.workers].find((candidate) => !candidate.job);
        if (!idle) return;
        this.retire(idle);
      }
      worker ??= this.spawn(job.memoryMb);
      this.queue.shift();
      this.start(worker, job);
    }
  }

  private spawn(memoryMb: number): PooledWorker {
    const worker = startWorker(memoryMb);
    const pooled: PooledWorker = { worker, memoryMb };
    let started = false;
    worker.on('message', (reply: ExtractReply) => {
      if ('ready' in reply) {
        started = true;
        return;
      }
      const job = pooled.job;
      if (!job || job.id !== reply.id) return;
      clearTimeout(job.timer);
      pooled.job = undefined;
      if (reply.ok) {
        job.resolve(reply.result);
        this.idle(pooled);
      } else {
        job.reject(new IngestError(reply.reason));
        // A refused file may have left the reader holding much of its memory: a fresh one starts clean.
        this.retire(pooled);
      }
      this.dispatch();
    });
    worker.on('error', (error: Error & { code?: string }) => {
      if (!started) {
        // The worker cannot even load (for instance, source run without a TypeScript loader): read files in this thread.
        workersUnavailable = true;
        this.failOver(pooled);
        return;
      }
      const reason = error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? memoryReason(pooled.memoryMb) : `could not read the file: ${reasonOf(error)}`;
      this.finish(pooled, new IngestError(reason));
    });
    worker.on('exit', () => {
      this.workers.delete(pooled);
      if (pooled.job) this.finish(pooled, new IngestError('could not read the file: the reader stopped unexpectedly'));
      this.dispatch();
    });
    this.workers.add(pooled);
    return pooled;
  }

  private start(pooled: PooledWorker, job: Job): void {
    clearTimeout(pooled.idleTimer);
    pooled.worker.ref();
    if (this.busy().length === 0) this.baselineRss = process.memoryUsage.rss();
    const id = nextId++;
    const timer = setTimeout(() => {
      this.finish(pooled, new IngestError(`reading the file took longer than ${duration(job.timeoutMs)}`));
    }, job.timeoutMs);
    pooled.job = { ...job, id, timer };
    pooled.worker.postMessage({ id, task: job.task } satisfies ExtractRequest);
    this.watchMemory();
  }

  /**
   * Samples the process's memory while readers run. A worker's heap has its own limit, but the
   * buffers a parser inflates into (a PDF's streams, a ZIP's parts) live outside it: when the
   * process grows past the cap, the readers are stopped. A job that was not alone gets one
   * more try alone, so a small file is not refused for a large one read beside it.
   */
  private watchMemory(): void {
    if (this.memoryTimer) return;
    this.memoryTimer = setInterval(() => {
      const busy = this.busy();
      if (busy.length === 0) {
        clearInterval(this.memoryTimer);
        this.memoryTimer = undefined;
        return;
      }
      const capMb = Math.max(...busy.map((pooled) => pooled.job!.memoryMb));
      if (process.memoryUsage.rss() - this.baselineRss <= capMb * 1048576) return;
      const together = busy.length > 1;
      for (const pooled of busy) {
        const job = pooled.job!;
        if (together && !job.alone) {
          clearTimeout(job.timer);
          pooled.job = undefined;
          this.retire(pooled);
          this.queue.unshift({ task: job.task, timeoutMs: job.timeoutMs, memoryMb: job.memoryMb, alone: true, resolve: job.resolve, reject: job.reject });
        } else this.finish(pooled, new IngestError(memoryReason(job.memoryMb)));
      }
      this.dispatch();
    }, MEMORY_CHECK_MS);
    this.memoryTimer.unref();
  }

  // Fails the worker's current job and throws the worker away (its state is unknown after a failure).
  private finish(pooled: PooledWorker, error: IngestError): void {
    const job = pooled.job;
    pooled.job = undefined;
    if (job) {
      clearTimeout(job.timer);
      job.reject(error);
    }
    this.retire(pooled);
  }

  private failOver(pooled: PooledWorker): void {
    const job = pooled.job;
    pooled.job = undefined;
    this.retire(pooled);
    const waiting = job ? [job, ...this.queue.splice(0)] : this.queue.splice(0);
    for (const next of waiting) {
      if ('timer' in next) clearTimeout(next.timer as NodeJS.Timeout);
      runTask(next.task).then(next.resolve, next.reject);
    }
  }

  private idle(pooled: PooledWorker): void {
    // An idle worker must not keep the process alive.
    pooled.worker.unref();
    pooled.idleTimer = setTimeout(() => this.retire(pooled), IDLE_MS);
    pooled.idleTimer.unref();
  }

  private retire(pooled: PooledWorker): void {
    clearTimeout(pooled.idleTimer);
    this.workers.delete(pooled);
    void pooled.worker.terminate();
  }
}

const pool = new WorkerPool();

function memoryReason(memoryMb: number): string {
  return `reading the file needs more than the ${memoryMb} MB of memory allowed`;
}

function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}

function megabytes(bytes: number): string {
  return (bytes / 1048576).toFixed(bytes < 10 * 1048576 ? 1 : 0);
}
