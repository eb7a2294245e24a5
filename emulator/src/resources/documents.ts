import { checkFileUploadFields, checkUpdateDocument, checkUpsertDocuments, checkV1Upsert } from 'kagent-chat/protocol';
import { nowIso, type RequestContext } from '../context.js';
import { formFields, readForm, readJson, valid } from '../http/body.js';
import { HttpError, json } from '../http/responses.js';
import { datasourceRecord } from '../present.js';
import type { Change, DatasourceRow, DatastoreRow } from '../store/records.js';
import { newDatasource, storeUpload, writableDatastore } from './datasources.js';
import { cleanName } from '../http/names.js';

// The document endpoints: the deprecated upsert, update and file upload of
// 4.8, and the versioned upsert of 4.9. A document is a datasource of type
// `text`; its text is split (on a reader thread) and indexed (slice by slice)
// before the answer, so it is searchable as soon as the call returns.

/** `POST /datastores/upsert/{datastoreId}` (deprecated): `{ids}` of the new documents. */
export async function upsertDocuments(context: RequestContext): Promise<Response> {
  const body = valid(checkUpsertDocuments(await readJson(context.request)));
  const datastore = writableDatastore(context, context.params.id!);
  const now = nowIso();
  const rows: DatasourceRow[] = [];
  const ids: string[] = [];
  for (const document of body.documents) {
    const row = textDatasource({ ...newDatasource(datastore, now), type: 'text', name: '', config: {} }, document, now);
    ids.push(row.id);
    rows.push(row);
  }
  await ingestDocuments(context, rows);
  return json({ ids });
}

/** `POST /v1/datastores/{datastoreId}/upsert` (4.9): a document with an `id` that exists is replaced, else added. */
export async function upsertDocumentsV1(context: RequestContext): Promise<Response> {
  const body = valid(checkV1Upsert(await readJson(context.request)));
  const datastore = writableDatastore(context, context.params.id!);
  const now = nowIso();
  const rows: DatasourceRow[] = [];
  const ids: string[] = [];
  for (const [i, document] of body.documents.entries()) {
    const existing = document.id === undefined ? undefined : context.store.datasources.get(document.id);
    if (existing && existing.datastoreId !== datastore.id) {
      throw new HttpError(400, `Invalid request: documents.${i}.id belongs to another datastore`);
    }
    const base = existing ?? { ...newDatasource(datastore, now), ...(document.id ? { id: document.id } : {}), type: 'text' as const, name: '', config: {} };
    const row = textDatasource(base, document, now);
    ids.push(row.id);
    rows.push(row);
  }
  await ingestDocuments(context, rows);
  return json({ ids });
}

/** `POST /datastores/update/{datastoreId}` (deprecated): replaces a document's text; `{id}`. */
export async function updateDocument(context: RequestContext): Promise<Response> {
  const body = valid(checkUpdateDocument(await readJson(context.request)));
  const datastore = writableDatastore(context, context.params.id!);
  const existing = context.store.datasources.get(body.id);
  if (!existing || existing.datastoreId !== datastore.id) throw new HttpError(404, `No document with id ${body.id} in datastore ${datastore.id}.`);
  const row = textDatasource(existing, { text: body.text, name: body.name, metadata: body.metadata === null ? {} : body.metadata }, nowIso());
  await ingestDocuments(context, [row]);
  return json({ id: row.id });
}

/** `POST /external/datastores/file-upload/{datastoreId}` (deprecated): the new datasource, ingested in the background. */
export async function uploadDocumentFile(context: RequestContext): Promise<Response> {
  const datastore: DatastoreRow = writableDatastore(context, context.params.id!);
  const form = await readForm(context.request, context.settings.maxUploadBytes);
  const fields = valid(checkFileUploadFields(formFields(form, ['fileName', 'custom_id'])));
  const row = await storeUpload(context, datastore, form, fields.fileName, fields.custom_id);
  return json(datasourceRecord(row));
}

/** A document as a synched `text` datasource. `metadata.source` is its address; `metadata.custom_id` its custom id. */
function textDatasource(
  base: DatasourceRow,
  document: { text: string; name?: string | undefined; metadata?: Record<string, unknown> | undefined },
  now: string,
): DatasourceRow {
  const metadata = document.metadata ?? base.config.metadata ?? {};
  const source = typeof metadata.source === 'string' ? metadata.source : undefined;
  const customId = typeof metadata.custom_id === 'string' ? metadata.custom_id : base.custom_id;
  return {
    ...base,
    name: cleanName(document.name || base.name || source || '', 'Document'),
    status: 'synched',
    errorMessage: null,
    custom_id: customId,
    config: { ...base.config, metadata, ...(source ? { source_url: source } : {}) },
    text: document.text,
    updatedAt: now,
    lastSynch: now,
    textSize: document.text.length,
  };
}

/**
 * Commits the documents' rows together, `running` until their fragments are in (after a kill,
 * ingestion resumes them), then splits and indexes each without holding the server's thread.
 */
async function ingestDocuments(context: RequestContext, rows: DatasourceRow[]): Promise<void> {
  context.store.commit(rows.map((row): Change => ({ put: 'datasource', row: { ...row, status: 'running' } })));
  for (const row of rows) await context.ingestion.ingestNow(row.id);
}
