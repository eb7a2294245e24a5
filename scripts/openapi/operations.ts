// The endpoints of the interface description (section 4), as a table the
// OpenAPI document is built from. The bodies and records are the protocol's
// own schemas (src/protocol), named once in `SCHEMAS`; this table says only
// which goes where. Operations the description does not show (4.10) but the
// typed client and the emulator have are marked `section: undefined`.
import * as v from 'valibot';
import * as p from '../../src/protocol/index.js';

/** Every schema of the document, by its name under `components/schemas`. */
export const SCHEMAS = {
  Error: p.ErrorBodyRecord,
  Agent: p.AgentRecord,
  AgentList: p.listOf(p.AgentRecord),
  Datastore: p.DatastoreRecord,
  DatastoreList: p.listOf(p.DatastoreRecord),
  DatasourceConfig: p.DatasourceConfig,
  Datasource: p.DatasourceRecord,
  DatasourceList: p.listOf(p.DatasourceRecord),
  DatastoreFragment: p.DatastoreFragmentRecord,
  DatastoreFragments: v.array(p.DatastoreFragmentRecord),
  Source: p.SourceRecord,
  AgentQueryAnswer: p.AgentQueryAnswerRecord,
  Conversation: p.ConversationRecord,
  ConversationList: p.listOf(p.ConversationRecord),
  UpsertAnswer: p.UpsertAnswerRecord,
  UpdateDocumentAnswer: p.UpdateDocumentAnswerRecord,
  AgentQueryRequest: p.StrictAgentQueryBody,
  AgentUpdateRequest: p.StrictAgentUpdateBody,
  AgentCreateRequest: p.StrictAgentCreateBody,
  EmptyRequest: p.EmptyBody,
  DatastoreQueryRequest: p.DatastoreQueryBody,
  DatastoreUpdateRequest: p.DatastoreUpdateBody,
  DatastoreCreateRequest: p.DatastoreCreateBody,
  WebDatasourceRequest: p.WebDatasourceBody,
  FileDatasourceFields: p.FileDatasourceFields,
  FileUploadFields: p.FileUploadFields,
  UpsertDocumentsRequest: p.UpsertDocumentsBody,
  UpdateDocumentRequest: p.UpdateDocumentBody,
  V1UpsertRequest: p.V1UpsertBody,
} satisfies Record<string, v.GenericSchema>;

export type SchemaName = keyof typeof SCHEMAS;

export interface OperationRow {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** With `{name}` path parameters; every path is also answered under `/v1`. */
  path: string;
  operationId: string;
  summary: string;
  /** The section of the interface description; `undefined`: not in it, the emulator's design. */
  section: string | undefined;
  tag: 'Agents' | 'Datastores' | 'Datasources' | 'Documents' | 'Emulator';
  deprecated?: boolean;
  /** Descriptions of the path parameters, by name. */
  params?: Record<string, string>;
  /** An object schema whose entries are the query parameters. */
  query?: v.GenericSchema;
  /** A JSON body. */
  json?: SchemaName;
  /** A `multipart/form-data` body: these text fields beside a required `file`. */
  form?: SchemaName;
  /** The success status and its body. */
  ok: { status: 200 | 201; json?: SchemaName; eventStream?: boolean; file?: boolean; document?: boolean };
  /** Needs no key. */
  open?: boolean;
  /** Statuses beyond the common ones. */
  more?: (402 | 502)[];
}

const agentId = { id: 'The agent id.' };
const datastoreId = { id: 'The datastore id.' };
const datasourceId = { id: 'The datasource id.' };
const upsertTarget = { datastoreId: 'The datastore id.' };

export const OPERATIONS: OperationRow[] = [
  { method: 'post', path: '/agents/{id}/query', operationId: 'queryAgent', section: '4.1', tag: 'Agents', params: agentId, summary: 'Ask an agent; the answer as JSON, or as an event stream with `streaming: true`', json: 'AgentQueryRequest', ok: { status: 200, json: 'AgentQueryAnswer', eventStream: true }, more: [402, 502] },
  { method: 'patch', path: '/agents/{id}', operationId: 'updateAgent', section: '4.2', tag: 'Agents', params: agentId, summary: 'Update an agent', json: 'AgentUpdateRequest', ok: { status: 200, json: 'Agent' } },
  { method: 'delete', path: '/agents/{id}', operationId: 'deleteAgent', section: '4.3', tag: 'Agents', params: agentId, summary: 'Delete an agent; answers with the agent deleted', json: 'EmptyRequest', ok: { status: 200, json: 'Agent' } },
  { method: 'get', path: '/agents', operationId: 'listAgents', section: '4.9', tag: 'Agents', summary: "List the organization's agents", query: p.ListQuery, ok: { status: 200, json: 'AgentList' } },
  { method: 'get', path: '/agents/{id}/conversations', operationId: 'listConversations', section: '4.9', tag: 'Agents', params: agentId, summary: "List an agent's conversations, oldest first; `after` (the last one's `createdAt`) reads the next page", query: p.ConversationsQuery, ok: { status: 200, json: 'ConversationList' } },
  { method: 'post', path: '/agents', operationId: 'createAgent', section: undefined, tag: 'Agents', summary: 'Create an agent', json: 'AgentCreateRequest', ok: { status: 201, json: 'Agent' } },
  { method: 'get', path: '/agents/{id}', operationId: 'getAgent', section: undefined, tag: 'Agents', params: agentId, summary: 'Read an agent', ok: { status: 200, json: 'Agent' } },

  { method: 'post', path: '/datastores/{id}/query', operationId: 'queryDatastore', section: '4.4', tag: 'Datastores', params: datastoreId, summary: 'The fragments most similar to a query, best first', json: 'DatastoreQueryRequest', ok: { status: 200, json: 'DatastoreFragments' } },
  { method: 'patch', path: '/datastores/{id}', operationId: 'updateDatastore', section: '4.5', tag: 'Datastores', params: datastoreId, summary: 'Update a datastore', json: 'DatastoreUpdateRequest', ok: { status: 200, json: 'Datastore' } },
  { method: 'delete', path: '/datastores/{id}', operationId: 'deleteDatastore', section: '4.6', tag: 'Datastores', params: datastoreId, summary: 'Delete a datastore and its datasources; answers with the datastore deleted', json: 'EmptyRequest', ok: { status: 200, json: 'Datastore' } },
  { method: 'post', path: '/datastores/{id}/upsert', operationId: 'upsertDocuments', section: '4.9', tag: 'Datastores', params: datastoreId, summary: 'Add documents, or replace those whose `id` exists', json: 'V1UpsertRequest', ok: { status: 200, json: 'UpsertAnswer' } },
  { method: 'post', path: '/datastores', operationId: 'createDatastore', section: undefined, tag: 'Datastores', summary: 'Create a datastore', json: 'DatastoreCreateRequest', ok: { status: 201, json: 'Datastore' } },
  { method: 'get', path: '/datastores', operationId: 'listDatastores', section: undefined, tag: 'Datastores', summary: "List the organization's datastores", query: p.ListQuery, ok: { status: 200, json: 'DatastoreList' } },
  { method: 'get', path: '/datastores/{id}', operationId: 'getDatastore', section: undefined, tag: 'Datastores', params: datastoreId, summary: 'Read a datastore', ok: { status: 200, json: 'Datastore' } },
  { method: 'get', path: '/datastores/{id}/datasources', operationId: 'listDatasources', section: undefined, tag: 'Datastores', params: datastoreId, summary: "List a datastore's datasources", query: p.ListQuery, ok: { status: 200, json: 'DatasourceList' } },

  { method: 'post', path: '/datasources', operationId: 'createDatasource', section: '4.7', tag: 'Datasources', summary: 'Create a datasource from a file (multipart) or a web page or site (JSON); ingestion follows in the background', form: 'FileDatasourceFields', json: 'WebDatasourceRequest', ok: { status: 201, json: 'Datasource' } },
  { method: 'delete', path: '/datasources/{id}', operationId: 'deleteDatasource', section: '4.4a', tag: 'Datasources', params: datasourceId, summary: 'Delete a datasource; answers with the datasource deleted', json: 'EmptyRequest', ok: { status: 200, json: 'Datasource' } },
  { method: 'get', path: '/datasources/{id}', operationId: 'getDatasource', section: undefined, tag: 'Datasources', params: datasourceId, summary: 'Read a datasource; its `status` tells how ingestion goes', ok: { status: 200, json: 'Datasource' } },

  { method: 'post', path: '/datastores/upsert/{datastoreId}', operationId: 'upsertDocumentsDeprecated', section: '4.8', tag: 'Documents', deprecated: true, params: upsertTarget, summary: 'Add documents (deprecated: use `POST /datastores/{id}/upsert`)', json: 'UpsertDocumentsRequest', ok: { status: 200, json: 'UpsertAnswer' } },
  { method: 'post', path: '/datastores/update/{datastoreId}', operationId: 'updateDocument', section: '4.8', tag: 'Documents', deprecated: true, params: upsertTarget, summary: "Replace a document's text (deprecated)", json: 'UpdateDocumentRequest', ok: { status: 200, json: 'UpdateDocumentAnswer' } },
  { method: 'post', path: '/external/datastores/file-upload/{datastoreId}', operationId: 'uploadDocumentFile', section: '4.8', tag: 'Documents', deprecated: true, params: upsertTarget, summary: 'Upload a file (deprecated: use `POST /datasources`); the description shows no answer, the emulator answers with the datasource', form: 'FileUploadFields', ok: { status: 200, json: 'Datasource' } },

  { method: 'get', path: '/files/{id}/{name}', operationId: 'getFile', section: undefined, tag: 'Emulator', params: { id: 'The datasource id.', name: "The file's name." }, summary: "An uploaded file, at the address its sources give as `source_url`; the address is the permission, no key", open: true, ok: { status: 200, file: true } },
  { method: 'get', path: '/openapi.json', operationId: 'getOpenApiDocument', section: undefined, tag: 'Emulator', summary: 'This document, with the emulator as its server', open: true, ok: { status: 200, document: true } },
];
