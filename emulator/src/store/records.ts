import type { DatasourceStatus, Source, Visibility } from 'kagent-chat/protocol';

// The emulator's own rows: what it keeps, including fields the service keeps
// but does not show (owners, hashes). `present.ts` turns them into records.

export type Plan = 'free' | 'pro' | 'enterprise';

export interface OrganizationRow {
  id: string;
  name: string;
  plan: Plan;
  /** Agent queries answered so far, for the usage limit. */
  agentQueries: number;
  /** The organization the emulator creates on its first start, with its agent and datastore. */
  demo?: { agentId: string; datastoreId: string };
  createdAt: string;
}

export interface ApiKeyRow {
  id: string;
  organizationId: string;
  label: string;
  /** SHA-256 of the key. */
  hash: string;
  /** The last characters, the only part shown after creation. */
  lastCharacters: string;
  createdAt: string;
  revokedAt: string | null;
  /** Only the demo organization's key is kept in clear, so it can be printed at every start. */
  demoKey?: string;
}

export interface AgentRow {
  id: string;
  organizationId: string;
  name: string;
  description: string;
  modelName: string;
  temperature: number;
  visibility: Visibility;
  systemPrompt: string;
  userPrompt: string;
  promptType: 'raw' | 'customer_support';
  promptTemplate: string | null;
  /** The datastores the agent answers from. */
  datastoreIds: string[];
  createdAt: string;
  updatedAt: string;
}

export interface DatastoreRow {
  id: string;
  organizationId: string;
  name: string;
  description: string;
  type: 'qdrant';
  visibility: Visibility;
  createdAt: string;
  updatedAt: string;
}

/** `text`: a document of the deprecated upsert endpoints. */
export type DatasourceKind = 'file' | 'web_page' | 'web_site' | 'text';

export interface DatasourceRow {
  id: string;
  organizationId: string;
  datastoreId: string;
  type: DatasourceKind;
  name: string;
  status: DatasourceStatus;
  /** Why ingestion failed, when `status` is `error`. */
  errorMessage: string | null;
  /** The `web_site` a crawled page belongs to. */
  groupId: string | null;
  custom_id: string | null;
  config: {
    source_url?: string;
    sitemap?: string;
    mime_type?: string;
    fileName?: string;
    fileSize?: number;
    /** Upserted document: its metadata. */
    metadata?: Record<string, unknown>;
  };
  /** Upserted document: its text. Files keep their bytes beside the store. */
  text?: string;
  createdAt: string;
  updatedAt: string;
  lastSynch: string | null;
  /** Text length ingested, in characters. */
  textSize?: number;
}

export interface FragmentRow {
  id: string;
  text: string;
  /** Where the fragment starts in its document's text. */
  offset: number;
  pageNumber?: number;
  totalPages?: number;
  /** Titles of the sections the fragment starts in, outermost first (documents with headings). */
  section?: string[];
}

export interface MessageRow {
  id: string;
  from: 'human' | 'agent';
  text: string;
  sources?: Source[];
  createdAt: string;
}

export interface ConversationRow {
  id: string;
  agentId: string;
  organizationId: string;
  visitorId: string;
  createdAt: string;
  updatedAt: string;
  messages: MessageRow[];
}

/** Everything the emulator keeps, as one value (the snapshot's shape). */
export interface StoreState {
  organizations: OrganizationRow[];
  keys: ApiKeyRow[];
  agents: AgentRow[];
  datastores: DatastoreRow[];
  datasources: DatasourceRow[];
  fragments: { datasourceId: string; fragments: FragmentRow[] }[];
  conversations: ConversationRow[];
}

/** One change. A commit is a list of them, written and applied as one. */
export type Change =
  | { put: 'organization'; row: OrganizationRow }
  | { put: 'key'; row: ApiKeyRow }
  | { put: 'agent'; row: AgentRow }
  | { put: 'datastore'; row: DatastoreRow }
  | { put: 'datasource'; row: DatasourceRow }
  | { put: 'fragments'; datasourceId: string; fragments: FragmentRow[] }
  | { put: 'conversation'; row: ConversationRow }
  /**
   * Adds fragments to a datasource's, from position `from` on: a large file is committed (and
   * indexed) in slices, so no single commit holds the server. Replayed twice, it changes nothing.
   */
  | { add: 'fragments'; datasourceId: string; from: number; fragments: FragmentRow[] }
  /** Adds a message to a conversation; a message already there (same id) is left as it is. */
  | { append: 'message'; conversationId: string; message: MessageRow; updatedAt: string }
  | { delete: 'key' | 'agent' | 'datastore' | 'datasource' | 'fragments' | 'conversation'; id: string };
