import type { UploadMimeType } from 'kagent-chat/protocol';
import {
  IngestError,
  crawlWebSite,
  extractFragments,
  fetchWebPage,
  splitDocument,
  splitIntoFragments,
  type ExtractLimits,
  type ExtractedDocument,
  type SplitDocument,
  type WebLimits,
} from './ingest/index.js';
import { newId } from './ids.js';
import { AnalysedFragments } from './search/fields.js';
import type { AnalysedSlice } from './search/fragment-index.js';
import type { Change, DatasourceRow, FragmentRow } from './store/records.js';
import type { Store } from './store/store.js';
import { cleanName } from './http/names.js';
import { yieldToRequests } from './yield.js';

/** States from which a datasource still has to be ingested (after a restart too). */
const UNFINISHED = new Set(['unsynched', 'pending', 'running']);

/** Bounds on ingesting one datasource: reading it (see `ExtractLimits`) and what it may add to the store. */
export interface IngestLimits extends ExtractLimits {
  /** Most fragments one file or page may be split into (default 20,000); beyond it the datasource is an `error`. */
  maxFragments: number;
}

export const DEFAULT_MAX_FRAGMENTS = 20_000;

/** A document's fragments as stored: each with its own id, page and the document's page count. */
export function fragmentsOf(document: ExtractedDocument): FragmentRow[] {
  const fragments = splitIntoFragments(document);
  return rowsOf({ fragments, ...(document.totalPages !== undefined ? { totalPages: document.totalPages } : {}) }, 0, fragments.length);
}

/** The split's fragments from `from` to `to` as stored rows (made a slice at a time: 20,000 at once held the server's thread). */
function rowsOf(split: Pick<SplitDocument, 'fragments' | 'totalPages'>, from: number, to: number): FragmentRow[] {
  return split.fragments.slice(from, to).map((fragment) => ({
    id: newId(),
    text: fragment.text,
    offset: fragment.offset,
    ...(fragment.pageNumber !== undefined ? { pageNumber: fragment.pageNumber } : {}),
    ...(split.totalPages !== undefined ? { totalPages: split.totalPages } : {}),
    ...(fragment.section ? { section: fragment.section } : {}),
  }));
}

// Fragments committed and indexed per slice start at this count, then follow the time a slice takes
// (the first slice runs code not yet optimised: 64 fragments took 50 to 70 ms).
const FIRST_SLICE = 16;
// What one slice of committing and indexing should take, well under the 50 ms a request may wait.
const SLICE_TARGET_MS = 15;
// Indexing takes about a quarter of a millisecond a fragment: 512 is already over 100 ms.
const MAX_SLICE = 512;

/**
 * Ingests datasources in the background, two at a time, taking turns between organizations
 * (the one with the fewest running goes first, so one organization's uploads cannot hold both
 * readers while another's wait). A datasource goes
 * `unsynched` -> `running` -> `synched` or `error` (with `errorMessage`), each
 * step committed so GET shows it. A failed parse is an `error` status, never
 * a crash. Datasources left unfinished by a kill start again on the next start.
 */
export class IngestQueue {
  readonly #store: Store;
  readonly #webLimits: Partial<WebLimits> | undefined;
  readonly #log: (message: string) => void;
  readonly #limits: Partial<IngestLimits>;
  readonly #maxFragments: number;
  /** Waiting datasources, by organization, in arrival order. */
  readonly #queues = new Map<string, string[]>();
  readonly #queued = new Set<string>();
  /** Running datasources by organization. */
  readonly #runningBy = new Map<string, number>();
  /** When each organization was last served, for taking turns. */
  readonly #lastServed = new Map<string, number>();
  #turn = 0;
  #running = 0;
  #closed = false;
  /** Stops running fetches and crawls when the emulator closes. */
  readonly #stop = new AbortController();
  #idleWaiters: (() => void)[] = [];
  static readonly CONCURRENCY = 2;

  constructor(store: Store, options: { webLimits?: Partial<WebLimits> | undefined; limits?: Partial<IngestLimits> | undefined; log: (message: string) => void }) {
    this.#store = store;
    this.#webLimits = options.webLimits;
    this.#limits = options.limits ?? {};
    this.#maxFragments = options.limits?.maxFragments ?? DEFAULT_MAX_FRAGMENTS;
    this.#log = options.log;
  }

  /** Queues every datasource a previous run left unfinished. */
  resume(): void {
    for (const row of this.#store.datasources.values()) {
      if (UNFINISHED.has(row.status)) this.enqueue(row.id);
    }
  }

  /**
   * Ingests a document of the document endpoints now, outside the queue (the request waits
   * for it, so it is searchable once answered): its text is split on a reader thread and its
   * fragments committed and indexed slice by slice like a file's, never holding the server's
   * thread for long. A failure is the document's `error` status, as for a file.
   */
  async ingestNow(datasourceId: string): Promise<void> {
    if (this.#closed) return;
    await this.#ingest(datasourceId);
  }

  enqueue(datasourceId: string): void {
    if (this.#closed || this.#queued.has(datasourceId)) return;
    const organizationId = this.#store.datasources.get(datasourceId)?.organizationId ?? '';
    this.#queued.add(datasourceId);
    const queue = this.#queues.get(organizationId);
    if (queue) queue.push(datasourceId);
    else this.#queues.set(organizationId, [datasourceId]);
    this.#pump();
  }

  /** Resolves once nothing is queued or running. */
  idle(): Promise<void> {
    if (this.#queues.size === 0 && this.#running === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Stops taking work; running jobs finish their current step and commit nothing more. */
  close(): void {
    this.#closed = true;
    this.#queues.clear();
    this.#stop.abort();
  }

  #pump(): void {
    while (!this.#closed && this.#running < IngestQueue.CONCURRENCY && this.#queues.size > 0) {
      const organizationId = this.#nextOrganization();
      const queue = this.#queues.get(organizationId)!;
      const id = queue.shift()!;
      if (queue.length === 0) this.#queues.delete(organizationId);
      this.#lastServed.set(organizationId, ++this.#turn);
      this.#runningBy.set(organizationId, (this.#runningBy.get(organizationId) ?? 0) + 1);
      this.#running++;
      this.#ingest(id)
        .catch((error) => this.#log(`ingestion of ${id} failed: ${(error as Error).stack ?? String(error)}`))
        .finally(() => {
          this.#queued.delete(id);
          this.#running--;
          const left = (this.#runningBy.get(organizationId) ?? 1) - 1;
          if (left > 0) this.#runningBy.set(organizationId, left);
          else this.#runningBy.delete(organizationId);
          this.#pump();
          if (this.#queues.size === 0 && this.#running === 0) for (const resolve of this.#idleWaiters.splice(0)) resolve();
        });
    }
  }

  /** The organization whose datasource goes next: fewest running first, then the one served longest ago. */
  #nextOrganization(): string {
    let best: string | undefined;
    for (const organizationId of this.#queues.keys()) {
      if (best === undefined) {
        best = organizationId;
        continue;
      }
      const running = this.#runningBy.get(organizationId) ?? 0;
      const bestRunning = this.#runningBy.get(best) ?? 0;
      if (running < bestRunning || (running === bestRunning && (this.#lastServed.get(organizationId) ?? 0) < (this.#lastServed.get(best) ?? 0))) best = organizationId;
    }
    return best!;
  }

  /**
   * Commits a datasource's fragments slice by slice, each slice journaled and indexed on its
   * own, yielding to the server between slices: a file of 20,000 fragments never holds a
   * request up for more than one slice. The slice size follows the time the last one took.
   */
  async #commitFragments(id: string, split: SplitDocument): Promise<boolean> {
    // Analysed on the reader thread: here the index only stores the terms.
    const analysed = new AnalysedFragments(split.terms);
    let from = 0;
    let size = FIRST_SLICE;
    while (from < split.fragments.length) {
      // Each slice in a turn of its own: the first one not in the turn that received the split.
      await yieldToRequests();
      const started = performance.now();
      const slice = rowsOf(split, from, from + size);
      if (!this.#commit(id, () => [{ add: 'fragments', datasourceId: id, from, fragments: slice }], { analysed, from })) return false;
      const took = performance.now() - started;
      from += slice.length;
      // Grows at most twofold a slice: one fast slice on an idle moment must not set a size that holds the thread for a second.
      size = Math.min(MAX_SLICE, 2 * size, Math.max(8, Math.round((size * SLICE_TARGET_MS) / Math.max(took, 1))));
    }
    // What follows (the datasource's row, journaled) in a turn of its own too.
    await yieldToRequests();
    return true;
  }

  /** Refuses a split with more fragments than allowed. */
  #checkFragmentCount(count: number): void {
    if (count > this.#maxFragments) {
      throw new IngestError(`its text splits into ${count} fragments, more than the ${this.#maxFragments} allowed for one file or page`);
    }
  }

  /** The row if it still exists and the emulator is still running. */
  #current(id: string): DatasourceRow | undefined {
    return this.#closed ? undefined : this.#store.datasources.get(id);
  }

  #commit(id: string, changes: (row: DatasourceRow) => Change[], analysed?: AnalysedSlice): boolean {
    const row = this.#current(id);
    if (!row) return false;
    this.#store.commit(changes(row), analysed);
    return true;
  }

  async #ingest(id: string): Promise<void> {
    // A turn of its own: the request that queued it may have just journaled a large text (a 5 MB
    // document takes 15 to 40 ms to write).
    await yieldToRequests();
    const start = this.#current(id);
    if (!start) return;
    const now = new Date().toISOString();
    const restart: Change[] = [{ delete: 'fragments', id }];
    // A row already `running` (a document the request committed so, or one a kill interrupted) is
    // not written again: a document's row holds its whole text.
    if (start.status !== 'running' || start.errorMessage !== null) restart.unshift({ put: 'datasource', row: { ...start, status: 'running', errorMessage: null, updatedAt: now } });
    // A crawl that was cut off starts again from nothing: its pages are crawled anew.
    for (const child of this.#store.datasources.values()) {
      if (child.groupId === id) restart.push({ delete: 'fragments', id: child.id }, { delete: 'datasource', id: child.id });
    }
    this.#store.commit(restart);
    try {
      if (start.type === 'web_site') {
        await this.#crawl(id);
        return;
      }
      const split = await this.#read(start);
      this.#checkFragmentCount(split.fragments.length);
      if (split.fragments.length === 0) throw new IngestError('no text could be read from it');
      if (!(await this.#commitFragments(id, split))) return;
      this.#commit(id, (row) => [
        { put: 'datasource', row: { ...row, ...synched(), name: row.name || cleanName(split.title ?? '', row.name), textSize: textSize(split.fragments) } },
      ]);
    } catch (error) {
      const reason = error instanceof IngestError ? error.message : `internal error: ${(error as Error).message}`;
      if (!(error instanceof IngestError)) this.#log(`ingestion of ${id} failed: ${(error as Error).stack ?? String(error)}`);
      // Slices committed before the refusal are removed: an `error` datasource has no fragments.
      this.#commit(id, (row) => [{ delete: 'fragments', id }, { put: 'datasource', row: { ...row, status: 'error', errorMessage: reason, updatedAt: new Date().toISOString() } }]);
    }
  }

  /** Reads a datasource and splits its text, both off the server's thread. */
  async #read(row: DatasourceRow): Promise<SplitDocument> {
    if (row.type === 'file') {
      const bytes = await this.#store.files.readFile(row.id);
      if (!bytes) throw new IngestError('the uploaded file is missing from the data folder');
      return extractFragments({ bytes, mimeType: row.config.mime_type as UploadMimeType, fileName: row.config.fileName ?? row.name }, this.#limits);
    }
    if (row.type === 'web_page') {
      const page = await fetchWebPage(row.config.source_url!, { ...this.#webLimits, signal: this.#stop.signal });
      return splitDocument({ pages: [{ text: page.text }], title: page.title }, this.#limits);
    }
    return splitDocument({ pages: [{ text: row.text ?? '' }], title: row.name }, this.#limits);
  }

  /** A `web_site`: each page read becomes a `web_page` datasource of the site's group, searchable as soon as it is read. */
  async #crawl(id: string): Promise<void> {
    const site = this.#current(id)!;
    const start = { sourceUrl: site.config.source_url!, ...(site.config.sitemap ? { sitemap: site.config.sitemap } : {}) };
    let pages = 0;
    let size = 0;
    for await (const page of crawlWebSite(start, { ...this.#webLimits, signal: this.#stop.signal })) {
      const split = await splitDocument({ pages: [{ text: page.text }], title: page.title }, this.#limits);
      if (split.fragments.length > this.#maxFragments) {
        this.#log(`crawl of ${id}: ${page.url} splits into ${split.fragments.length} fragments, more than the ${this.#maxFragments} allowed; left out`);
        continue;
      }
      if (split.fragments.length === 0) continue;
      const now = new Date().toISOString();
      const pageId = newId();
      const child: DatasourceRow = {
        id: pageId,
        organizationId: site.organizationId,
        datastoreId: site.datastoreId,
        type: 'web_page',
        name: cleanName(page.title || page.url, 'Web page'),
        status: 'running',
        errorMessage: null,
        groupId: id,
        custom_id: site.custom_id,
        config: { source_url: page.url },
        createdAt: now,
        updatedAt: now,
        lastSynch: now,
        textSize: textSize(split.fragments),
      };
      if (!this.#commit(id, () => [{ put: 'datasource', row: child }])) return;
      if (!(await this.#commitFragments(pageId, split))) return;
      if (!this.#commit(id, () => [{ put: 'datasource', row: { ...child, status: 'synched' } }])) return;
      pages++;
      size += child.textSize!;
    }
    if (pages === 0) throw new IngestError('no page of the site could be read');
    this.#commit(id, (row) => [{ put: 'datasource', row: { ...row, ...synched(), textSize: size } }]);
  }
}

function synched(): Pick<DatasourceRow, 'status' | 'errorMessage' | 'updatedAt' | 'lastSynch'> {
  const now = new Date().toISOString();
  return { status: 'synched', errorMessage: null, updatedAt: now, lastSynch: now };
}

/** Characters of text in fragments, without their overlaps. */
function textSize(fragments: readonly Pick<FragmentRow, 'offset' | 'text'>[]): number {
  let end = 0;
  for (const fragment of fragments) end = Math.max(end, fragment.offset + fragment.text.length);
  return end;
}
