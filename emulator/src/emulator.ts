import { readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { uploadMimeTypeOf } from 'kagent-chat/protocol';
import { authenticate, checkRateLimit, settingsOf, type EmulatorContext, type RequestContext } from './context.js';
import { HttpError, errorResponse } from './http/responses.js';
import { matchRoute, type Route } from './http/router.js';
import { hashApiKey, newApiKey, newId } from './ids.js';
import { IngestQueue } from './ingest-queue.js';
import type { EmulatorOptions } from './options.js';
import { RateLimiter } from './rate-limit.js';
import { queryAgent } from './resources/agent-query.js';
import { DEFAULT_MODEL_NAME, createAgent, deleteAgent, getAgent, listAgents, updateAgent } from './resources/agents.js';
import { listConversations } from './resources/conversations.js';
import { createDatasource, deleteDatasource, getDatasource, listDatasources } from './resources/datasources.js';
import { createDatastore, deleteDatastore, getDatastore, listDatastores, queryDatastore, updateDatastore } from './resources/datastores.js';
import { updateDocument, upsertDocuments, upsertDocumentsV1, uploadDocumentFile } from './resources/documents.js';
import { getFile } from './resources/files.js';
import { getOpenApiDocument } from './resources/openapi.js';
import { DatastoreIndexes } from './search/indexes.js';
import { DiskPersistence, MemoryPersistence } from './store/persistence.js';
import type { ApiKeyRow, DatasourceRow, OrganizationRow, Plan } from './store/records.js';
import { Store } from './store/store.js';
import { yieldToRequests } from './yield.js';

type Handler = (context: RequestContext) => Response | Promise<Response>;

/** Every endpoint, answered both as `/path` and `/v1/path`. Literal paths come before `:id` ones. */
const ROUTES: Route<Handler | 'file' | 'openapi'>[] = [
  { method: 'GET', pattern: '/agents', handler: listAgents },
  { method: 'POST', pattern: '/agents', handler: createAgent },
  { method: 'GET', pattern: '/agents/:id', handler: getAgent },
  { method: 'PATCH', pattern: '/agents/:id', handler: updateAgent },
  { method: 'DELETE', pattern: '/agents/:id', handler: deleteAgent },
  { method: 'POST', pattern: '/agents/:id/query', handler: queryAgent },
  { method: 'GET', pattern: '/agents/:id/conversations', handler: listConversations },
  { method: 'POST', pattern: '/datastores/upsert/:id', handler: upsertDocuments },
  { method: 'POST', pattern: '/datastores/update/:id', handler: updateDocument },
  { method: 'GET', pattern: '/datastores', handler: listDatastores },
  { method: 'POST', pattern: '/datastores', handler: createDatastore },
  { method: 'GET', pattern: '/datastores/:id', handler: getDatastore },
  { method: 'PATCH', pattern: '/datastores/:id', handler: updateDatastore },
  { method: 'DELETE', pattern: '/datastores/:id', handler: deleteDatastore },
  { method: 'POST', pattern: '/datastores/:id/query', handler: queryDatastore },
  { method: 'POST', pattern: '/datastores/:id/upsert', handler: upsertDocumentsV1 },
  { method: 'GET', pattern: '/datastores/:id/datasources', handler: listDatasources },
  { method: 'POST', pattern: '/datasources', handler: createDatasource },
  { method: 'GET', pattern: '/datasources/:id', handler: getDatasource },
  { method: 'DELETE', pattern: '/datasources/:id', handler: deleteDatasource },
  { method: 'POST', pattern: '/external/datastores/file-upload/:id', handler: uploadDocumentFile },
  { method: 'GET', pattern: '/files/:id/:name', handler: 'file' },
  { method: 'GET', pattern: '/openapi.json', handler: 'openapi' },
];

/** The demo organization's key and resources, printed at start. */
export interface DemoInfo {
  apiKey: string;
  organizationId: string;
  agentId: string;
  datastoreId: string;
}

/** A key as created: the only time its full value is shown. */
export interface CreatedKey {
  id: string;
  key: string;
  label: string;
  organizationId: string;
  lastCharacters: string;
  createdAt: string;
}

export interface CreateKeyOptions {
  label?: string;
  /** The organization the key opens; default the demo organization. */
  organizationId?: string;
  /** Create a new organization for the key instead. */
  newOrganization?: { name?: string; plan?: Plan };
}

/** A key as listed: never its value. */
export interface KeyInfo {
  id: string;
  label: string;
  organizationId: string;
  lastCharacters: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface Emulator {
  /** The Web-standard handler. It never throws: an unexpected failure is a 500 in the section-7 shape. */
  fetch(request: Request): Promise<Response>;
  demo: DemoInfo;
  createKey(options?: CreateKeyOptions): Promise<CreatedKey>;
  /** Revokes a key, by its id or its full value; it is refused from the next request on. */
  revokeKey(idOrKey: string): Promise<KeyInfo>;
  listKeys(): KeyInfo[];
  /** Resolves once every queued ingestion has finished. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A local stand-in of the Knowledge-Agent Service, as a Web-standard
 * handler. With `dataDir` it keeps everything there; without, in memory.
 */
export function createEmulator(options: EmulatorOptions = {}): Emulator {
  const settings = settingsOf(options);
  const persistence = options.dataDir
    ? new DiskPersistence(options.dataDir, options.snapshotAfterBytes ? { snapshotAfterBytes: options.snapshotAfterBytes } : {})
    : new MemoryPersistence();
  const indexes = new DatastoreIndexes(yieldToRequests);
  let store: Store;
  try {
    store = new Store(persistence, { log: settings.log, watcher: indexes });
  } catch (error) {
    persistence.close();
    throw error;
  }
  const ingestion = new IngestQueue(store, { webLimits: settings.webLimits, limits: settings.ingestLimits, log: settings.log });
  const context: EmulatorContext = { store, settings, limiter: new RateLimiter(), ingestion, indexes };
  let demo: DemoInfo;
  let closed = false;
  let seeding: Promise<void> = Promise.resolve();
  try {
    demo = ensureDemo(store, options);
    removeOrphanFiles(store);
    ingestion.resume();
    if (options.seed) seeding = seedFolder(context, demo, options.seed, () => closed).catch((error: Error) => settings.log(`seed: ${error.message}`));
  } catch (error) {
    // A seed folder that cannot be read, say: free the data folder before reporting it.
    ingestion.close();
    indexes.close();
    store.close();
    throw error;
  }

  return {
    demo,
    async fetch(request: Request): Promise<Response> {
      try {
        if (closed) throw new HttpError(503, 'The emulator is shutting down.');
        const url = new URL(request.url);
        const match = matchRoute(ROUTES, request.method, url.pathname);
        if (match.kind === 'none') throw new HttpError(404, `No endpoint ${request.method} ${url.pathname}.`);
        if (match.kind === 'method') {
          throw new HttpError(405, `${request.method} is not allowed on ${url.pathname}; use ${match.allow.join(', ')}.`, { headers: { Allow: match.allow.join(', ') } });
        }
        if (match.handler === 'file') return await getFile(store, match.params);
        if (match.handler === 'openapi') return await getOpenApiDocument(url);
        const caller = authenticate(store, request);
        checkRateLimit(context, caller);
        return await match.handler({ ...context, request, url, params: match.params, caller });
      } catch (error) {
        if (error instanceof HttpError) return errorResponse(error.status, error.message, error.code, error.headers);
        settings.log(`${request.method} ${request.url} failed: ${(error as Error).stack ?? String(error)}`);
        return errorResponse(500, 'The emulator failed to answer this request.');
      }
    },
    async createKey(keyOptions: CreateKeyOptions = {}): Promise<CreatedKey> {
      return createKey(store, demo.organizationId, keyOptions);
    },
    async revokeKey(idOrKey: string): Promise<KeyInfo> {
      const row = store.keys.get(idOrKey) ?? store.keyByHash(hashApiKey(idOrKey));
      if (!row) throw new Error(`No key ${idOrKey.length > 8 ? `ending in ${idOrKey.slice(-4)}` : idOrKey}.`);
      if (!row.revokedAt) store.commit([{ put: 'key', row: { ...row, revokedAt: new Date().toISOString() } }]);
      context.limiter.forget(row.id);
      return keyInfo(store.keys.get(row.id)!);
    },
    listKeys: () => [...store.keys.values()].map(keyInfo),
    idle: async () => {
      await seeding;
      await ingestion.idle();
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await seeding;
      ingestion.close();
      indexes.close();
      // A clean stop leaves one snapshot and an empty journal, so the next start replays nothing.
      if (options.dataDir) store.compact();
      store.close();
    },
  };
}

function keyInfo(row: ApiKeyRow): KeyInfo {
  return { id: row.id, label: row.label, organizationId: row.organizationId, lastCharacters: row.lastCharacters, createdAt: row.createdAt, revokedAt: row.revokedAt };
}

export function createKey(store: Store, demoOrganizationId: string, options: CreateKeyOptions): CreatedKey {
  const now = new Date().toISOString();
  let organizationId = options.organizationId ?? demoOrganizationId;
  const changes: Parameters<Store['commit']>[0] = [];
  if (options.newOrganization) {
    const organization: OrganizationRow = {
      id: newId(),
      name: options.newOrganization.name ?? 'Organization',
      plan: options.newOrganization.plan ?? 'free',
      agentQueries: 0,
      createdAt: now,
    };
    organizationId = organization.id;
    changes.push({ put: 'organization', row: organization });
  } else if (!store.organizations.has(organizationId)) {
    throw new Error(`No organization ${organizationId}.`);
  }
  const key = newApiKey();
  const row: ApiKeyRow = {
    id: newId(),
    organizationId,
    label: options.label ?? '',
    hash: hashApiKey(key),
    lastCharacters: key.slice(-4),
    createdAt: now,
    revokedAt: null,
  };
  changes.push({ put: 'key', row });
  store.commit(changes);
  return { id: row.id, key, label: row.label, organizationId, lastCharacters: row.lastCharacters, createdAt: now };
}

/** The demo organization, its key, a datastore and an agent that answers from it: made on the first start, kept after. */
function ensureDemo(store: Store, options: EmulatorOptions): DemoInfo {
  const now = new Date().toISOString();
  let organization = [...store.organizations.values()].find((row) => row.demo);
  const changes: Parameters<Store['commit']>[0] = [];
  if (!organization) {
    organization = { id: newId(), name: 'Demo organization', plan: options.demoPlan ?? 'pro', agentQueries: 0, createdAt: now, demo: { agentId: newId(), datastoreId: newId() } };
  } else if (options.demoPlan && organization.plan !== options.demoPlan) {
    organization = { ...organization, plan: options.demoPlan };
  }
  const demo = organization.demo!;
  if (!store.datastores.has(demo.datastoreId)) {
    changes.push({
      put: 'datastore',
      row: { id: demo.datastoreId, organizationId: organization.id, name: 'Demo datastore', description: 'Documents the demo agent answers from.', type: 'qdrant', visibility: 'private', createdAt: now, updatedAt: now },
    });
  }
  if (!store.agents.has(demo.agentId)) {
    changes.push({
      put: 'agent',
      row: {
        id: demo.agentId,
        organizationId: organization.id,
        name: 'Demo agent',
        description: 'Answers from the demo datastore.',
        modelName: DEFAULT_MODEL_NAME,
        temperature: 0,
        visibility: 'public',
        systemPrompt: 'You are a helpful assistant. Answer from the documents of the knowledge base and cite them.',
        userPrompt: '',
        promptType: 'raw',
        promptTemplate: null,
        datastoreIds: [demo.datastoreId],
        createdAt: now,
        updatedAt: now,
      },
    });
  }
  let keyRow = [...store.keys.values()].find((row) => row.organizationId === organization.id && row.demoKey && !row.revokedAt);
  const wanted = options.demoApiKey ?? keyRow?.demoKey ?? newApiKey();
  if (!keyRow || keyRow.demoKey !== wanted) {
    keyRow = {
      id: keyRow?.id ?? newId(),
      organizationId: organization.id,
      label: 'Demo key',
      hash: hashApiKey(wanted),
      lastCharacters: wanted.slice(-4),
      createdAt: keyRow?.createdAt ?? now,
      revokedAt: null,
      demoKey: wanted,
    };
    changes.push({ put: 'key', row: keyRow });
  }
  if (store.organizations.get(organization.id) !== organization) changes.unshift({ put: 'organization', row: organization });
  store.commit(changes);
  return { apiKey: wanted, organizationId: organization.id, agentId: demo.agentId, datastoreId: demo.datastoreId };
}

/** Files whose datasource is gone (deleted, or never acknowledged before a kill). */
function removeOrphanFiles(store: Store): void {
  for (const id of store.files.fileIds()) if (!store.datasources.has(id)) store.files.deleteFile(id);
}

/** Folders a seed walk never enters. */
const SKIPPED_FOLDERS = new Set(['node_modules', '.git']);

/**
 * `--seed`: each file of the folder (and its subfolders) of one of the eight
 * types becomes a datasource of the demo datastore, named by its path in the
 * folder. A file already there with the same size is kept; a changed one is
 * replaced. Other files are passed over.
 */
function seedFolder(context: EmulatorContext, demo: DemoInfo, folder: string, isClosed: () => boolean): Promise<void> {
  const { store } = context;
  const existing = new Map<string, DatasourceRow>();
  for (const row of store.datasourcesOf(demo.datastoreId)) if (row.type === 'file') existing.set(row.name, row);
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true })
      .filter((entry) => !entry.name.startsWith('.') && !SKIPPED_FOLDERS.has(entry.name))
      .sort((a, b) => a.name.localeCompare(b.name))
      .flatMap((entry) => (entry.isDirectory() ? walk(join(dir, entry.name)) : entry.isFile() ? [join(dir, entry.name)] : []));
  // The folder is walked now (an unreadable one fails the start); the files are copied in after.
  const added: { path: string; row: DatasourceRow; old: DatasourceRow | undefined }[] = [];
  for (const path of walk(folder)) {
    const name = relative(folder, path).split('\\').join('/');
    const mimeType = uploadMimeTypeOf(undefined, name);
    if (!mimeType) continue;
    const size = statSync(path).size;
    if (size > context.settings.maxUploadBytes) {
      context.settings.log(`seed: ${name} is larger than the upload limit; passed over`);
      continue;
    }
    const old = existing.get(name);
    if (old && old.config.fileSize === size && old.status !== 'error') continue;
    const now = new Date().toISOString();
    const row: DatasourceRow = {
      id: newId(),
      organizationId: demo.organizationId,
      datastoreId: demo.datastoreId,
      type: 'file',
      name,
      status: 'unsynched',
      errorMessage: null,
      groupId: null,
      custom_id: null,
      config: { mime_type: mimeType, fileName: name, fileSize: size },
      createdAt: now,
      updatedAt: now,
      lastSynch: null,
    };
    added.push({ path, row, old });
  }
  return (async () => {
    for (const { path, row, old } of added) {
      await store.files.writeFile(row.id, new Uint8Array(await readFile(path)));
      if (isClosed()) return;
      store.commit([...(old ? [{ delete: 'fragments' as const, id: old.id }, { delete: 'datasource' as const, id: old.id }] : []), { put: 'datasource', row }]);
      if (old) store.files.deleteFile(old.id);
      context.ingestion.enqueue(row.id);
    }
  })();
}
