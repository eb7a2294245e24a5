// The demo's knowledge base: this project's README and docs, uploaded to the
// emulator's demo datastore as `npm start` does it. The question-set test and
// bench seed their emulator through this same function, so they measure what
// a newcomer gets.
import { readFile, readdir } from 'node:fs/promises';
import { KagentClient } from '../src/client/index.js';

/** The files `npm start` feeds the emulator, by their path in the project: README.md and docs/*.md. */
export async function knowledgeBaseFiles(root: URL): Promise<string[]> {
  const docs = (await readdir(new URL('docs/', root))).filter((name) => name.endsWith('.md')).sort();
  return ['README.md', ...docs.map((name) => `docs/${name}`)];
}

interface Listed {
  id: string;
  name: string;
  status: string;
  errorMessage?: string;
  config?: { fileSize?: number };
}

export interface SeedProgress {
  /** Documents read so far (synched or failed), of `total`. */
  done: number;
  total: number;
}

/**
 * Uploads each knowledge-base file to the datastore, named by its path, and
 * waits until all are read. A file already there with the same size is kept
 * (a restart with a data folder reads nothing again); a changed one replaces
 * the old datasource. Files that fail to read are reported through `warn`.
 */
export async function seedKnowledgeBase(
  root: URL,
  service: { url: string; apiKey: string; datastoreId: string },
  report: { progress?: (progress: SeedProgress) => void; warn?: (message: string) => void } = {},
): Promise<void> {
  const files = await knowledgeBaseFiles(root);
  const client = new KagentClient({ baseUrl: service.url, apiKey: service.apiKey });
  const list = async (): Promise<Listed[]> => {
    const response = await fetch(`${service.url}/datastores/${service.datastoreId}/datasources?limit=100`, { headers: { Authorization: `Bearer ${service.apiKey}` } });
    if (!response.ok) throw new Error(`the emulator did not list the datastore's documents (${response.status})`);
    return ((await response.json()) as { data: Listed[] }).data;
  };
  const existing = new Map((await list()).map((row) => [row.name, row]));
  const wanted = new Set<string>();
  for (const path of files) {
    const bytes = await readFile(new URL(path, root));
    const old = existing.get(path);
    if (old && old.config?.fileSize === bytes.byteLength && old.status !== 'error') {
      wanted.add(old.id);
      continue;
    }
    if (old) await client.datasources.delete(old.id);
    const created = await client.datasources.uploadFile({ datastoreId: service.datastoreId, file: new Blob([bytes], { type: 'text/markdown' }), fileName: path });
    wanted.add(created.id);
  }
  // Uploads are acknowledged at once and read in the background: follow them to the end.
  const warned = new Set<string>();
  let shown = -1;
  for (;;) {
    const rows = (await list()).filter((row) => wanted.has(row.id));
    for (const row of rows) {
      if (row.status === 'error' && !warned.has(row.id)) {
        warned.add(row.id);
        report.warn?.(`${row.name} could not be read: ${row.errorMessage}`);
      }
    }
    const done = rows.filter((row) => row.status === 'synched' || row.status === 'error').length;
    if (done !== shown) report.progress?.({ done, total: files.length });
    shown = done;
    if (done >= wanted.size) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
