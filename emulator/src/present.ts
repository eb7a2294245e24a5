import type { Agent, Conversation, Datasource, Datastore, DatastoreFragment, Source } from 'kagent-chat/protocol';
import type { FragmentHit } from './search/fragment-index.js';
import type { AgentRow, ConversationRow, DatasourceRow, DatastoreRow } from './store/records.js';

// Rows as the service shows them: the records of section 2, with the fields
// the service adds (owner, dates), never a key or a hash.

/** Section 2 gives datasource dates as YYYY-MM-DD. */
const day = (iso: string | null): string | null => (iso ? iso.slice(0, 10) : null);

export function agentRecord(row: AgentRow): Agent {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    modelName: row.modelName,
    temperature: row.temperature,
    visibility: row.visibility,
    systemPrompt: row.systemPrompt,
    userPrompt: row.userPrompt,
    promptType: row.promptType,
    promptTemplate: row.promptTemplate,
    datastoreIds: row.datastoreIds,
    organizationId: row.organizationId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export function datastoreRecord(row: DatastoreRow): Datastore {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    type: row.type,
    visibility: row.visibility,
    organizationId: row.organizationId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export function datasourceRecord(row: DatasourceRow): Datasource {
  const config: Record<string, unknown> = { ...row.config };
  if (row.custom_id !== null) config.custom_id = row.custom_id;
  return {
    id: row.id,
    type: row.type,
    name: row.name,
    status: row.status,
    ...(row.errorMessage ? { errorMessage: row.errorMessage } : {}),
    groupId: row.groupId,
    datastoreId: row.datastoreId,
    ...(row.custom_id !== null ? { custom_id: row.custom_id } : {}),
    updatedAt: day(row.updatedAt),
    createdAt: day(row.createdAt),
    lastSynch: day(row.lastSynch),
    config,
  };
}

export function conversationRecord(row: ConversationRow): Conversation {
  return {
    id: row.id,
    agentId: row.agentId,
    visitorId: row.visitorId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    messages: row.messages.map((message) => ({
      id: message.id,
      from: message.from,
      text: message.text,
      ...(message.sources ? { sources: message.sources } : {}),
      createdAt: message.createdAt,
    })),
  };
}

/** One datastore query result: the five documented fields, plus `custom_id` and `offset` (wire-format.md). */
export function fragmentResult(hit: FragmentHit, datasource: DatasourceRow, fileUrl: (row: DatasourceRow) => string | undefined): DatastoreFragment {
  return {
    text: hit.fragment.text,
    score: hit.score,
    source: sourceUrlOf(datasource, fileUrl) ?? datasource.name,
    datasource_id: datasource.id,
    datasource_name: datasource.name,
    ...(datasource.custom_id !== null ? { custom_id: datasource.custom_id } : {}),
    offset: hit.fragment.offset,
  };
}

/** One object of an answer's `sources`, with the fields wire-format.md lists; unset ones are left out. */
export function sourceOf(hit: FragmentHit, datasource: DatasourceRow, fileUrl: (row: DatasourceRow) => string | undefined): Source {
  const sourceUrl = sourceUrlOf(datasource, fileUrl);
  const mimeType = datasource.config.mime_type ?? (datasource.type === 'web_page' || datasource.type === 'web_site' ? 'text/html' : 'text/plain');
  return {
    chunk_id: hit.fragment.id,
    datasource_id: datasource.id,
    datasource_name: datasource.name,
    datasource_type: datasource.type,
    ...(sourceUrl ? { source_url: sourceUrl } : {}),
    mime_type: mimeType,
    ...(hit.fragment.pageNumber !== undefined ? { page_number: hit.fragment.pageNumber } : {}),
    ...(hit.fragment.totalPages !== undefined ? { total_pages: hit.fragment.totalPages } : {}),
    ...(datasource.custom_id !== null ? { custom_id: datasource.custom_id } : {}),
    score: hit.score,
  };
}

function sourceUrlOf(datasource: DatasourceRow, fileUrl: (row: DatasourceRow) => string | undefined): string | undefined {
  if (datasource.config.source_url) return datasource.config.source_url;
  const metadataSource = datasource.config.metadata?.source;
  if (typeof metadataSource === 'string' && metadataSource) return metadataSource;
  return datasource.type === 'file' ? fileUrl(datasource) : undefined;
}
