import * as v from 'valibot';
import { DatastoreCreateBody, DatastoreUpdateBody, VISIBILITIES, checkDatastoreQuery, checkEmptyBody, checkWith, jsonObject, oneOf, type ListResponse } from 'kagent-chat/protocol';
import { fileUrlFor, nowIso, reachable, type RequestContext } from '../context.js';
import { pageOf, readJson, valid } from '../http/body.js';
import { HttpError, json } from '../http/responses.js';
import { newId } from '../ids.js';
import { datastoreRecord, fragmentResult } from '../present.js';
import type { Change, DatastoreRow } from '../store/records.js';
import type { Store } from '../store/store.js';
import { cleanName } from '../http/names.js';

// Datastores: 4.4 query, 4.5 update, 4.6 delete, and the create, list and get
// operations section 4.10 leaves out.

/** `PATCH /datastores/{id}` fields, plus `visibility`, which section 3 says is set through updates. */
const DatastoreChangeBody = jsonObject({ ...DatastoreUpdateBody.pipe[1].entries, visibility: v.optional(oneOf(VISIBILITIES)) }, 'must be a JSON object');

/** Results of a datastore query when the body gives no `topK`. */
export const DEFAULT_TOP_K = 5;
/** The most results a datastore query returns. */
export const MAX_TOP_K = 100;

export function listDatastores(context: RequestContext): Response {
  const { page, limit } = pageOf(context.url);
  const all = [...context.store.datastores.values()].filter((row) => row.organizationId === context.caller.organization.id);
  const body: ListResponse<unknown> = { data: all.slice((page - 1) * limit, page * limit).map(datastoreRecord), meta: { page, limit, total: all.length } };
  return json(body);
}

export async function createDatastore(context: RequestContext): Promise<Response> {
  const body = valid(checkWith(DatastoreCreateBody, await readJson(context.request)));
  const now = nowIso();
  const row: DatastoreRow = {
    id: newId(),
    organizationId: context.caller.organization.id,
    name: cleanName(body.name, 'Datastore'),
    description: body.description ?? '',
    type: 'qdrant',
    visibility: body.visibility ?? 'private',
    createdAt: now,
    updatedAt: now,
  };
  context.store.commit([{ put: 'datastore', row }]);
  return json(datastoreRecord(row), 201);
}

export function getDatastore(context: RequestContext): Response {
  const id = context.params.id!;
  return json(datastoreRecord(reachable(context.store.datastores.get(id), context.caller, 'datastore', id, 'read')));
}

/** `PATCH /datastores/{id}` (4.5). */
export async function updateDatastore(context: RequestContext): Promise<Response> {
  const id = context.params.id!;
  const body = valid(checkWith(DatastoreChangeBody, await readJson(context.request)));
  const row = reachable(context.store.datastores.get(id), context.caller, 'datastore', id, 'write');
  const changed: DatastoreRow = { ...row, updatedAt: nowIso() };
  if (body.name !== undefined) changed.name = cleanName(body.name, row.name);
  if (body.description !== undefined) changed.description = body.description;
  if (body.visibility !== undefined) changed.visibility = body.visibility;
  context.store.commit([{ put: 'datastore', row: changed }]);
  return json(datastoreRecord(changed));
}

/** `DELETE /datastores/{id}` (4.6): the datastore, its datasources and fragments; agents stop answering from it. */
export async function deleteDatastore(context: RequestContext): Promise<Response> {
  const id = context.params.id!;
  valid(checkEmptyBody(await readJson(context.request, { optional: true })));
  const row = reachable(context.store.datastores.get(id), context.caller, 'datastore', id, 'write');
  const changes: Change[] = [];
  for (const datasource of context.store.datasourcesOf(id)) changes.push(...datasourceRemoval(context.store, datasource.id, false));
  for (const agent of context.store.agents.values()) {
    if (agent.datastoreIds.includes(id)) changes.push({ put: 'agent', row: { ...agent, datastoreIds: agent.datastoreIds.filter((d) => d !== id) } });
  }
  changes.push({ delete: 'datastore', id });
  context.store.commit(changes);
  for (const change of changes) if ('delete' in change && change.delete === 'datasource') context.store.files.deleteFile(change.id);
  return json(datastoreRecord(row));
}

/** The changes that remove a datasource, its fragments and, for a web site, its pages. */
export function datasourceRemoval(store: Store, id: string, withPages = true): Change[] {
  const changes: Change[] = [];
  if (withPages) {
    for (const page of store.datasources.values()) {
      if (page.groupId === id) changes.push({ delete: 'fragments', id: page.id }, { delete: 'datasource', id: page.id });
    }
  }
  changes.push({ delete: 'fragments', id }, { delete: 'datasource', id });
  return changes;
}

/** `POST /datastores/{id}/query` (4.4): the `topK` best fragments, best first, scored 0..1. */
export async function queryDatastore(context: RequestContext): Promise<Response> {
  const id = context.params.id!;
  const body = valid(checkDatastoreQuery(await readJson(context.request)));
  const datastore = reachable(context.store.datastores.get(id), context.caller, 'datastore', id, 'read');
  if (body.filters && datastore.organizationId !== context.caller.organization.id) {
    throw new HttpError(403, 'Filters may be used only on your own datastores.');
  }
  const topK = Math.min(body.topK ?? DEFAULT_TOP_K, MAX_TOP_K);
  const filter = datasourceFilter(context.store, body.filters);
  const hits = context.indexes.of(id).query(body.query, { topK, ...(filter ? { datasourceFilter: filter } : {}) });
  const fileUrl = fileUrlFor(context);
  return json(hits.map((hit) => fragmentResult(hit, context.store.datasources.get(hit.datasourceId)!, fileUrl)));
}

/**
 * `filters`: `datasource_ids` match a datasource or, for a web site, its
 * pages; `custom_ids` match the datasource's `custom_id`. Both given: both apply.
 */
export function datasourceFilter(store: Store, filters: { custom_ids?: string[] | undefined; datasource_ids?: string[] | undefined } | undefined): ((datasourceId: string) => boolean) | undefined {
  const ids = filters?.datasource_ids ? new Set(filters.datasource_ids) : undefined;
  const customIds = filters?.custom_ids ? new Set(filters.custom_ids) : undefined;
  if (!ids && !customIds) return undefined;
  return (datasourceId) => {
    const row = store.datasources.get(datasourceId);
    if (!row) return false;
    if (ids && !ids.has(row.id) && !(row.groupId && ids.has(row.groupId))) return false;
    if (customIds && (row.custom_id === null || !customIds.has(row.custom_id))) return false;
    return true;
  };
}
