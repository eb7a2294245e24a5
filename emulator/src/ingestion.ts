import type { UploadMimeType } from 'kagent-chat/protocol';
import { IngestError, crawlWebSite, extractDocument, fetchWebPage, splitIntoFragments, type ExtractedDocument, type WebLimits } from './ingest/index.js';
import { newId } from './ids.js';
import type { Change, DatasourceRow, FragmentRow } from './store/records.js';
import type { Store } from './store/store.js';
import { cleanName } from './http/names.js';

/** States from which a datasource still has to be ingested (after a restart too). */
const UNFINISHED = new Set(['unsynched', 'pending', 'running']);

/** A document's fragments as stored: each with its own id, page and the document's page count. */
export function fragmentsOf(document: ExtractedDocument): FragmentRow[] {
  return splitIntoFragments(document).map((fragment) => ({
    id: newId(),
    text: fragment.text,
    offset: fragment.offset,
    ...(fragment.pageNumber !== undefined ? { pageNumber: fragment.pageNumber } : {}),
    ...(document.totalPages !== undefined ? { totalPages: document.totalPages } : {}),
  }));
}

/**
 * Ingests datasources in the background, two at a time: a datasource goes
 * `unsynched` -> `running` -> `synched` or `error` (with `errorMessage`), each
 * step committed so GET shows it. A failed parse is an `error` status, never
 * a crash. Datasources left unfinished by a kill start again on the next start.
 */
export class Ingestion {
  readonly #store: Store;
  readonly #webLimits: Partial<WebLimits> | undefined;
  readonly #log: (message: string) => void;
  readonly #queue: string[] = [];
  readonly #queued = new Set<string>();
  #running = 0;
  #closed = false;
  /** Stops running fetches and crawls when the emulator closes. */
  readonly #stop = new AbortController();
  #idleWaiters: (() => void)[] = [];
  static readonly CONCURRENCY = 2;

  constructor(store: Store, options: { webLimits?: Partial<WebLimits> | undefined; log: (message: string) => void }) {
    this.#store = store;
    this.#webLimits = options.webLimits;
    this.#log = options.log;
  }

  /** Queues every datasource a previous run left unfinished. */
  resume(): void {
    for (const row of this.#store.datasources.values()) {
      if (UNFINISHED.has(row.status) && row.type !== 'text') this.enqueue(row.id);
    }
  }

  enqueue(datasourceId: string): void {
    if (this.#closed || this.#queued.has(datasourceId)) return;
    this.#queued.add(datasourceId);
    this.#queue.push(datasourceId);
    this.#pump();
  }

  /** Resolves once nothing is queued or running. */
  idle(): Promise<void> {
    if (this.#queue.length === 0 && this.#running === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Stops taking work; running jobs finish their current step and commit nothing more. */
  close(): void {
    this.#closed = true;
    this.#queue.length = 0;
    this.#stop.abort();
  }

  #pump(): void {
    while (!this.#closed && this.#running < Ingestion.CONCURRENCY && this.#queue.length > 0) {
      const id = this.#queue.shift()!;
      this.#running++;
      this.#ingest(id)
        .catch((error) => this.#log(`ingestion of ${id} failed: ${(error as Error).stack ?? String(error)}`))
        .finally(() => {
          this.#queued.delete(id);
          this.#running--;
          this.#pump();
          if (this.#queue.length === 0 && this.#running === 0) for (const resolve of this.#idleWaiters.splice(0)) resolve();
        });
    }
  }

  /** The row if it still exists and the emulator is still running. */
  #current(id: string): DatasourceRow | undefined {
    return this.#closed ? undefined : this.#store.datasources.get(id);
  }

  #commit(id: string, changes: (row: DatasourceRow) => Change[]): boolean {
    const row = this.#current(id);
    if (!row) return false;
    this.#store.commit(changes(row));
    return true;
  }

  async #ingest(id: string): Promise<void> {
    const start = this.#current(id);
    if (!start) return;
    const now = new Date().toISOString();
    const restart: Change[] = [{ put: 'datasource', row: { ...start, status: 'running', errorMessage: null, updatedAt: now } }, { delete: 'fragments', id }];
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
      const document = await this.#read(start);
      const fragments = fragmentsOf(document);
      if (fragments.length === 0) throw new IngestError('no text could be read from it');
      this.#commit(id, (row) => [
        { put: 'fragments', datasourceId: id, fragments },
        { put: 'datasource', row: { ...row, ...synched(), name: row.name || cleanName(document.title ?? '', row.name), textSize: textSize(fragments) } },
      ]);
    } catch (error) {
      const reason = error instanceof IngestError ? error.message : `internal error: ${(error as Error).message}`;
      if (!(error instanceof IngestError)) this.#log(`ingestion of ${id} failed: ${(error as Error).stack ?? String(error)}`);
      this.#commit(id, (row) => [{ put: 'datasource', row: { ...row, status: 'error', errorMessage: reason, updatedAt: new Date().toISOString() } }]);
    }
  }

  async #read(row: DatasourceRow): Promise<ExtractedDocument> {
    if (row.type === 'file') {
      const bytes = this.#store.files.readFile(row.id);
      if (!bytes) throw new IngestError('the uploaded file is missing from the data folder');
      return extractDocument({ bytes, mimeType: row.config.mime_type as UploadMimeType, fileName: row.config.fileName ?? row.name });
    }
    if (row.type === 'web_page') {
      const page = await fetchWebPage(row.config.source_url!, { ...this.#webLimits, signal: this.#stop.signal });
      return { pages: [{ text: page.text }], title: page.title };
    }
    return { pages: [{ text: row.text ?? '' }], title: row.name };
  }

  /** A `web_site`: each page read becomes a `web_page` datasource of the site's group, searchable as soon as it is read. */
  async #crawl(id: string): Promise<void> {
    const site = this.#current(id)!;
    const start = { sourceUrl: site.config.source_url!, ...(site.config.sitemap ? { sitemap: site.config.sitemap } : {}) };
    let pages = 0;
    let size = 0;
    for await (const page of crawlWebSite(start, { ...this.#webLimits, signal: this.#stop.signal })) {
      const fragments = fragmentsOf({ pages: [{ text: page.text }], title: page.title });
      if (fragments.length === 0) continue;
      const now = new Date().toISOString();
      const pageId = newId();
      const child: DatasourceRow = {
        id: pageId,
        organizationId: site.organizationId,
        datastoreId: site.datastoreId,
        type: 'web_page',
        name: cleanName(page.title || page.url, 'Web page'),
        status: 'synched',
        errorMessage: null,
        groupId: id,
        custom_id: site.custom_id,
        config: { source_url: page.url },
        createdAt: now,
        updatedAt: now,
        lastSynch: now,
        textSize: textSize(fragments),
      };
      const stillThere = this.#commit(id, () => [
        { put: 'datasource', row: child },
        { put: 'fragments', datasourceId: pageId, fragments },
      ]);
      if (!stillThere) return;
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
function textSize(fragments: readonly FragmentRow[]): number {
  let end = 0;
  for (const fragment of fragments) end = Math.max(end, fragment.offset + fragment.text.length);
  return end;
}
