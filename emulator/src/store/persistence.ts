import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeSync,
  ftruncateSync,
  fstatSync,
} from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Change, StoreState } from './records.js';

/**
 * Where the store keeps its changes and uploaded files. `append` returns only
 * once the change is durable: a kill after it loses nothing.
 */
export interface Persistence {
  /** The last snapshot and the changes written after it, in order. */
  load(): { snapshot: StoreState | undefined; commits: Change[][] };
  append(changes: Change[]): void;
  /** Whether enough has been appended since the last snapshot to write a new one (and none is being written). */
  wantsSnapshot(): boolean;
  /** Writes the whole state now, in one go (on a clean shutdown). */
  snapshot(state: StoreState): void;
  /**
   * Writes a snapshot in the background, from the JSON text `pieces` gives piece by piece,
   * yielding to the server between pieces; commits go on meanwhile. Resolves once written.
   */
  snapshotInBackground(pieces: () => Iterable<string>): Promise<void>;
  /**
   * Keeps an upload durably (resolves once it is). Written and read without holding the
   * server's thread: a 50 MB file synced to a busy disk took hundreds of milliseconds.
   */
  writeFile(datasourceId: string, bytes: Uint8Array): Promise<void>;
  /** An upload's bytes, in a `SharedArrayBuffer` where it can be, so a reader thread gets them without a copy. */
  readFile(datasourceId: string): Promise<Uint8Array | undefined>;
  deleteFile(datasourceId: string): void;
  fileIds(): string[];
  close(): void;
}

/** Keeps everything in memory: for an emulator started without `--data-dir`. */
export class MemoryPersistence implements Persistence {
  readonly #files = new Map<string, Uint8Array>();
  load() {
    return { snapshot: undefined, commits: [] };
  }
  append(): void {}
  wantsSnapshot(): boolean {
    return false;
  }
  snapshot(): void {}
  async snapshotInBackground(): Promise<void> {}
  async writeFile(datasourceId: string, bytes: Uint8Array): Promise<void> {
    this.#files.set(datasourceId, bytes);
  }
  async readFile(datasourceId: string): Promise<Uint8Array | undefined> {
    return this.#files.get(datasourceId);
  }
  deleteFile(datasourceId: string): void {
    this.#files.delete(datasourceId);
  }
  fileIds(): string[] {
    return [...this.#files.keys()];
  }
  close(): void {}
}

export class DataDirInUseError extends Error {}

// A background snapshot writes about this many characters at a time…
const SNAPSHOT_WRITE_CHARS = 1024 * 1024;
// …and lets the server answer after at most about this long of serializing.
const SNAPSHOT_SLICE_MS = 10;

/** Folders held by emulators of this process (the pid file cannot tell them apart). */
const heldHere = new Set<string>();

/**
 * A folder holding `snapshot.json` (the whole state, replaced atomically:
 * temp file, fsync, rename, fsync of the folder), `journal.jsonl` (one line per
 * commit since, each fsynced before the commit is acknowledged) and `files/`
 * (uploads, written the same atomic way). Replaying a commit twice is
 * harmless, so a crash between snapshot and journal reset loses nothing.
 */
export class DiskPersistence implements Persistence {
  readonly #dir: string;
  readonly #filesDir: string;
  readonly #journalPath: string;
  readonly #snapshotPath: string;
  readonly #lockPath: string;
  readonly #previousJournalPath: string;
  readonly #snapshotBytes: number;
  #journal: number | undefined;
  #journalSize = 0;
  /** Set while a background snapshot is written; `cancelled` tells it to stop (a snapshot in one go replaced it, or the folder closed). */
  #background: { cancelled: boolean } | undefined;

  constructor(dir: string, options: { snapshotAfterBytes?: number } = {}) {
    this.#dir = dir;
    this.#filesDir = join(dir, 'files');
    this.#journalPath = join(dir, 'journal.jsonl');
    this.#snapshotPath = join(dir, 'snapshot.json');
    // While a snapshot is written in the background, the journal it replaces is kept under this name.
    this.#previousJournalPath = join(dir, 'journal.previous.jsonl');
    this.#lockPath = resolve(dir, 'emulator.pid');
    this.#snapshotBytes = options.snapshotAfterBytes ?? 32 * 1024 * 1024;
    mkdirSync(this.#filesDir, { recursive: true });
    this.#lock();
    this.#removeStaleTempFiles();
  }

  /**
   * Temp files are renamed into place once complete, so any left at start were cut off by a
   * kill mid-write: nothing refers to them. Removed only once this emulator holds the folder.
   */
  #removeStaleTempFiles(): void {
    for (const folder of [this.#dir, this.#filesDir]) {
      for (const name of readdirSync(folder)) if (name.endsWith('.tmp')) rmSync(join(folder, name), { force: true });
    }
  }

  /** One emulator per folder: two writers would interleave their journals. */
  #lock(): void {
    if (heldHere.has(this.#lockPath)) throw new DataDirInUseError(`${this.#dir} is in use by another emulator of this process.`);
    if (existsSync(this.#lockPath)) {
      const pid = Number(readFileSync(this.#lockPath, 'utf8').trim());
      if (pid && pid !== process.pid && isRunning(pid)) {
        throw new DataDirInUseError(`${this.#dir} is in use by another emulator (process ${pid}).`);
      }
    }
    writeFileDurably(this.#lockPath, new TextEncoder().encode(String(process.pid)));
    heldHere.add(this.#lockPath);
  }

  load(): { snapshot: StoreState | undefined; commits: Change[][] } {
    const snapshot = existsSync(this.#snapshotPath) ? (JSON.parse(readFileSync(this.#snapshotPath, 'utf8')) as StoreState) : undefined;
    const commits: Change[][] = [];
    let validLength = 0;
    // A background snapshot was cut off: its journal comes first, then the one written beside it.
    this.#mergePreviousJournal();
    if (existsSync(this.#journalPath)) {
      const bytes = readFileSync(this.#journalPath);
      let start = 0;
      for (;;) {
        const end = bytes.indexOf(10, start);
        // A last line without its newline was cut by a kill before it was acknowledged.
        if (end === -1) break;
        const line = bytes.subarray(start, end).toString('utf8');
        try {
          commits.push(JSON.parse(line) as Change[]);
        } catch (error) {
          const isLast = bytes.indexOf(10, end + 1) === -1 && end + 1 >= bytes.length;
          if (!isLast) throw new Error(`${this.#journalPath} is damaged at byte ${start}: ${(error as Error).message}`);
          break;
        }
        start = end + 1;
        validLength = start;
      }
    }
    this.#journal = openSync(this.#journalPath, 'a+');
    // Drops a torn last line, so the next commit starts on a line of its own.
    if (fstatSync(this.#journal).size !== validLength) {
      ftruncateSync(this.#journal, validLength);
      fsyncSync(this.#journal);
    }
    this.#journalSize = validLength;
    return { snapshot, commits };
  }

  /**
   * Puts a journal left by a cut-off background snapshot back in front of the current one, as
   * one file (written beside, then renamed over): the journal is again all since the snapshot.
   */
  #mergePreviousJournal(): void {
    if (!existsSync(this.#previousJournalPath)) return;
    const previous = readFileSync(this.#previousJournalPath);
    // A torn last line in the older journal would glue onto the first line of the newer one.
    const cut = previous.lastIndexOf(10) + 1;
    const current = existsSync(this.#journalPath) ? readFileSync(this.#journalPath) : Buffer.alloc(0);
    writeFileDurably(this.#journalPath, Buffer.concat([previous.subarray(0, cut), current]));
    rmSync(this.#previousJournalPath, { force: true });
    syncFolder(this.#dir);
  }

  append(changes: Change[]): void {
    if (this.#journal === undefined) throw new Error('load() must come before append()');
    const line = Buffer.from(`${JSON.stringify(changes)}\n`, 'utf8');
    let written = 0;
    while (written < line.length) written += writeSync(this.#journal, line, written, line.length - written);
    fsyncSync(this.#journal);
    this.#journalSize += line.length;
  }

  wantsSnapshot(): boolean {
    return this.#background === undefined && this.#journalSize >= this.#snapshotBytes;
  }

  snapshot(state: StoreState): void {
    if (this.#journal === undefined) throw new Error('load() must come before snapshot()');
    if (this.#background) this.#background.cancelled = true;
    this.#background = undefined;
    writeFileDurably(this.#snapshotPath, Buffer.from(JSON.stringify(state), 'utf8'));
    ftruncateSync(this.#journal, 0);
    fsyncSync(this.#journal);
    this.#journalSize = 0;
    rmSync(this.#previousJournalPath, { force: true });
  }

  /**
   * The journal so far is set aside (renamed, so it stays whole) and a new one started; the
   * snapshot is then written from `pieces` a bounded slice at a time. The state it reads may
   * already hold changes of the new journal: replaying a change twice is harmless, so the
   * snapshot and the new journal still make the whole state. Once the snapshot is in place
   * the old journal goes. A kill before that leaves the old snapshot and both journals, which
   * the next start reads in order.
   */
  async snapshotInBackground(pieces: () => Iterable<string>): Promise<void> {
    if (this.#journal === undefined) throw new Error('load() must come before snapshotInBackground()');
    if (this.#background) return;
    const run = { cancelled: false };
    this.#background = run;
    closeSync(this.#journal);
    // A journal kept by a background snapshot that failed goes back in front first, so none is lost.
    this.#mergePreviousJournal();
    renameSync(this.#journalPath, this.#previousJournalPath);
    this.#journal = openSync(this.#journalPath, 'a+');
    syncFolder(this.#dir);
    this.#journalSize = 0;
    const temp = `${this.#snapshotPath}.${process.pid}.background.tmp`;
    let file;
    try {
      file = await open(temp, 'w');
    } catch (error) {
      if (this.#background === run) this.#background = undefined;
      throw error;
    }
    let complete = false;
    try {
      let buffered: string[] = [];
      let bufferedLength = 0;
      let sliceStart = performance.now();
      for (const piece of pieces()) {
        buffered.push(piece);
        bufferedLength += piece.length;
        if (bufferedLength >= SNAPSHOT_WRITE_CHARS) {
          await file.write(buffered.join(''));
          buffered = [];
          bufferedLength = 0;
        }
        if (performance.now() - sliceStart >= SNAPSHOT_SLICE_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          sliceStart = performance.now();
        }
        if (run.cancelled) return;
      }
      await file.write(buffered.join(''));
      await file.sync();
      complete = true;
    } finally {
      await file.close();
      if (!complete || run.cancelled) rmSync(temp, { force: true });
      // A failed write lets a later commit try again; the journals it kept stay and are merged then.
      if (!complete && this.#background === run) this.#background = undefined;
    }
    // Checked and renamed with no wait between: a snapshot written in one go meanwhile is never replaced by this older one.
    if (run.cancelled) return;
    renameSync(temp, this.#snapshotPath);
    syncFolder(this.#dir);
    rmSync(this.#previousJournalPath, { force: true });
    syncFolder(this.#dir);
    this.#background = undefined;
  }

  async writeFile(datasourceId: string, bytes: Uint8Array): Promise<void> {
    const path = join(this.#filesDir, safeName(datasourceId));
    const temp = `${path}.${process.pid}.tmp`;
    const file = await open(temp, 'w');
    try {
      let written = 0;
      while (written < bytes.length) written += (await file.write(bytes, written, bytes.length - written)).bytesWritten;
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, path);
    const folder = await open(this.#filesDir, 'r');
    try {
      await folder.sync();
    } finally {
      await folder.close();
    }
  }

  async readFile(datasourceId: string): Promise<Uint8Array | undefined> {
    let file;
    try {
      file = await open(join(this.#filesDir, safeName(datasourceId)), 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    try {
      const { size } = await file.stat();
      const bytes = new Uint8Array(new SharedArrayBuffer(size));
      let read = 0;
      while (read < size) {
        const { bytesRead } = await file.read(bytes, read, size - read, read);
        if (bytesRead === 0) break;
        read += bytesRead;
      }
      return bytes.subarray(0, read);
    } finally {
      await file.close();
    }
  }

  deleteFile(datasourceId: string): void {
    rmSync(join(this.#filesDir, safeName(datasourceId)), { force: true });
  }

  fileIds(): string[] {
    return readdirSync(this.#filesDir)
      .filter((name) => !name.endsWith('.tmp'))
      .map(idOfFileName);
  }

  close(): void {
    if (this.#background) this.#background.cancelled = true;
    this.#background = undefined;
    if (this.#journal !== undefined) closeSync(this.#journal);
    this.#journal = undefined;
    if (heldHere.delete(this.#lockPath)) rmSync(this.#lockPath, { force: true });
  }
}

/** Writes a file so that it is either wholly there or not at all, and stays after a crash. */
function writeFileDurably(path: string, bytes: Uint8Array): void {
  const temp = `${path}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w');
  try {
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
  syncFolder(join(path, '..'));
}

function syncFolder(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Ids come from the emulator, but a file name must never climb out of its folder. */
/**
 * A datasource's file name in the files folder: its id when that is letters, digits, `_` and
 * `-` (the emulator's own ids), else `~` and the hex of its UTF-8 bytes, as a caller-chosen id
 * (`doc.1`, `../x`) may hold anything; `idOfFileName` reads either back.
 */
function safeName(id: string): string {
  if (/^[A-Za-z0-9_-]{1,200}$/.test(id)) return id;
  const hex = Buffer.from(id, 'utf8').toString('hex');
  // Too long for a file name: its hash (only the emulator's own ids ever have files; a name must only never fail).
  return hex.length <= 200 ? `~${hex}` : `#${createHash('sha256').update(id).digest('hex')}`;
}

function idOfFileName(name: string): string {
  return name.startsWith('~') ? Buffer.from(name.slice(1), 'hex').toString('utf8') : name;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
