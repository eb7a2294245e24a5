import {
  UPLOAD_MIME_TYPES,
  checkEmptyBody,
  checkFileDatasourceFields,
  checkWebDatasource,
  uploadMimeTypeOf,
  type ListResponse,
} from 'kagent-chat/protocol';
import { nowIso, reachable, type RequestContext } from '../context.js';
import { formFields, pageOf, readForm, readJson, valid } from '../http/body.js';
import type { MultipartForm } from '../http/multipart.js';
import { HttpError, json } from '../http/responses.js';
import { newId } from '../ids.js';
import { datasourceRecord } from '../present.js';
import type { DatasourceRow, DatastoreRow } from '../store/records.js';
import { datasourceRemoval } from './datastores.js';
import { cleanName } from '../http/names.js';

// Datasources: 4.7 create (a file as multipart, a web page or site as JSON),
// 4.4a delete, and the get and list operations section 4.10 leaves out.

/** `POST /datasources` (4.7): 201 with the datasource, `unsynched`; ingestion follows in the background. */
export async function createDatasource(context: RequestContext): Promise<Response> {
  const type = (context.request.headers.get('Content-Type') ?? '').toLowerCase();
  if (type.startsWith('multipart/form-data')) return createFileDatasource(context);
  const body = valid(checkWebDatasource(await readJson(context.request)));
  const datastore = writableDatastore(context, body.datastoreId);
  const now = nowIso();
  const row: DatasourceRow = {
    ...newDatasource(datastore, now),
    type: body.type,
    name: cleanName(body.name || body.config.source_url, 'Web page'),
    config: { source_url: body.config.source_url, ...(body.config.sitemap ? { sitemap: body.config.sitemap } : {}) },
  };
  context.store.commit([{ put: 'datasource', row }]);
  context.ingestion.enqueue(row.id);
  return json(datasourceRecord(row), 201);
}

async function createFileDatasource(context: RequestContext): Promise<Response> {
  const form = await readForm(context.request, context.settings.maxUploadBytes);
  const fields = valid(checkFileDatasourceFields(formFields(form, ['type', 'datastoreId', 'fileName', 'custom_id'])));
  const datastore = writableDatastore(context, fields.datastoreId);
  const row = await storeUpload(context, datastore, form, fields.fileName, fields.custom_id);
  return json(datasourceRecord(row), 201);
}

/**
 * Keeps an uploaded file (durably, before answering) and queues its
 * ingestion. Shared with the deprecated file upload. A type outside the
 * eight of 4.7 is a 400.
 */
export async function storeUpload(
  context: RequestContext,
  datastore: DatastoreRow,
  form: MultipartForm,
  fileName: string | undefined,
  customId: string | undefined,
): Promise<DatasourceRow> {
  const file = form.get('file');
  if (file === null) throw new HttpError(400, 'Invalid request: file is required');
  if (typeof file === 'string') throw new HttpError(400, 'Invalid request: file must be a file, not a text field');
  const name = cleanName(fileName || file.fileName || '', 'file');
  const mimeType = uploadMimeTypeOf(file.type, name);
  if (!mimeType) {
    throw new HttpError(400, `Invalid request: file has type ${file.type || 'unknown'} (${name}); accepted types: ${UPLOAD_MIME_TYPES.join(', ')}`);
  }
  const { bytes } = file;
  if (bytes.byteLength > context.settings.maxUploadBytes) throw new HttpError(413, `The upload is larger than ${context.settings.maxUploadBytes} bytes.`);
  const now = nowIso();
  const row: DatasourceRow = {
    ...newDatasource(datastore, now),
    type: 'file',
    name,
    custom_id: customId ?? null,
    config: { mime_type: mimeType, fileName: name, fileSize: bytes.length },
  };
  // The file first: a datasource that was acknowledged always has its bytes.
  await context.store.files.writeFile(row.id, bytes);
  context.store.commit([{ put: 'datasource', row }]);
  context.ingestion.enqueue(row.id);
  return row;
}

/** `GET /datasources/{id}`: its `status` shows how ingestion goes. */
export function getDatasource(context: RequestContext): Response {
  const id = context.params.id!;
  const row = context.store.datasources.get(id);
  const datastore = row && context.store.datastores.get(row.datastoreId);
  reachable(row && datastore ? { organizationId: row.organizationId, visibility: datastore.visibility } : undefined, context.caller, 'datasource', id, 'read');
  return json(datasourceRecord(row!));
}

/** `DELETE /datasources/{id}` (4.4a): the deleted datasource; a web site's pages go with it. */
export async function deleteDatasource(context: RequestContext): Promise<Response> {
  const id = context.params.id!;
  valid(checkEmptyBody(await readJson(context.request, { optional: true })));
  const row = reachable(context.store.datasources.get(id), context.caller, 'datasource', id, 'write');
  context.store.commit(datasourceRemoval(context.store, id));
  context.store.files.deleteFile(id);
  return json(datasourceRecord(row));
}

/** `GET /datastores/{id}/datasources`: the datastore's datasources, oldest first. */
export function listDatasources(context: RequestContext): Response {
  const id = context.params.id!;
  reachable(context.store.datastores.get(id), context.caller, 'datastore', id, 'read');
  const { page, limit } = pageOf(context.url);
  const all = context.store.datasourcesOf(id);
  const body: ListResponse<unknown> = { data: all.slice((page - 1) * limit, page * limit).map(datasourceRecord), meta: { page, limit, total: all.length } };
  return json(body);
}

/** The datastore a new datasource goes to: it must exist (400 when the field names none) and be the caller's. */
export function writableDatastore(context: RequestContext, id: string): DatastoreRow {
  const datastore = context.store.datastores.get(id);
  if (!datastore) throw new HttpError(404, `No datastore with id ${id}.`);
  return reachable(datastore, context.caller, 'datastore', id, 'write');
}

export function newDatasource(datastore: DatastoreRow, now: string): Omit<DatasourceRow, 'type' | 'name' | 'config'> {
  return {
    id: newId(),
    organizationId: datastore.organizationId,
    datastoreId: datastore.id,
    status: 'unsynched',
    errorMessage: null,
    groupId: null,
    custom_id: null,
    createdAt: now,
    updatedAt: now,
    lastSynch: null,
  };
}
