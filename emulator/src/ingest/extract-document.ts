import { Worker } from 'node:worker_threads';
import type { ExtractedDocument } from './document.js';
import { IngestError, reasonOf } from './errors.js';
import { extractInThisThread, type UploadedFile } from './extract.js';
import type { ExtractReply, ExtractRequest } from './extract-worker.js';

/** Bounds on reading one uploaded file. */
export interface ExtractLimits {
  /** Give up on a file that takes longer than this to read (default 120 s). */
  timeoutMs: number;
  /** Refuse files larger than this (default 100 MB). */
  maxFileBytes: number;
  /** Heap a worker may use while reading (default 1024 MB); a file needing more is refused. */
  maxMemoryMb: number;
}

export const DEFAULT_EXTRACT_LIMITS: ExtractLimits = { timeoutMs: 120_000, maxFileBytes: 100 * 1024 * 1024, maxMemoryMb: 1024 };

// Two cores on the machines this runs on; more parallel parsers would only compete with the server.
const MAX_WORKERS = 2;
// An idle worker keeps its loaded parsers this long for the next upload, then ends.
const IDLE_MS = 15_000;

/**
 * The readable text of an uploaded file, page by page. Parsing runs in a worker thread, so a
 * file that takes too long or needs too much memory is stopped and refused without affecting
 * the caller. Throws `IngestError` with the reason; never anything else.
 */
export async function extractDocument(file: UploadedFile, limits: Partial<ExtractLimits> = {}): Promise<ExtractedDocument> {
  const { timeoutMs, maxFileBytes, maxMemoryMb } = { ...DEFAULT_EXTRACT_LIMITS, ...limits };
  if (file.bytes.byteLength > maxFileBytes) {
    throw new IngestError(`the file is ${megabytes(file.bytes.byteLength)} MB, more than the ${megabytes(maxFileBytes)} MB allowed`);
  }
  if (workersUnavailable) return extractInThisThread(file);
  return pool.run(file, timeoutMs, maxMemoryMb);
}

interface Job {
  file: UploadedFile;
  timeoutMs: number;
  memoryMb: number;
  resolve(document: ExtractedDocument): void;
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

  run(file: UploadedFile, timeoutMs: number, memoryMb: number): Promise<ExtractedDocument> {
    return new Promise((resolve, reject) => {
      this.queue.push({ file, timeoutMs, memoryMb, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const job = this.queue[0]!;
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
      if (reply.ok) job.resolve(reply.document);
      else job.reject(new IngestError(reply.reason));
      this.idle(pooled);
      this.dispatch();
    });
    worker.on('error', (error: Error & { code?: string }) => {
      if (!started) {
        // The worker cannot even load (for instance, source run without a TypeScript loader): read files in this thread.
        workersUnavailable = true;
        this.failOver(pooled);
        return;
      }
      const reason =
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? `reading the file needs more than the ${pooled.memoryMb} MB of memory allowed`
          : `could not read the file: ${reasonOf(error)}`;
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
    const id = nextId++;
    const timer = setTimeout(() => {
      this.finish(pooled, new IngestError(`reading the file took longer than ${duration(job.timeoutMs)}`));
    }, job.timeoutMs);
    pooled.job = { ...job, id, timer };
    pooled.worker.postMessage({ id, file: job.file } satisfies ExtractRequest);
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
      extractInThisThread(next.file).then(next.resolve, next.reject);
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

function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}

function megabytes(bytes: number): string {
  return (bytes / 1048576).toFixed(bytes < 10 * 1048576 ? 1 : 0);
}
