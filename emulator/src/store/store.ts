import { FragmentIndex, type AnalysedSlice } from '../search.js';
import type { Persistence } from './persistence.js';
import type {
  AgentRow,
  ApiKeyRow,
  Change,
  ConversationRow,
  DatasourceRow,
  DatastoreRow,
  FragmentRow,
  OrganizationRow,
  StoreState,
} from './records.js';

// Rows (or fragments) serialized together in one piece of a background snapshot.
const SNAPSHOT_PIECE_ROWS = 256;

/**
 * Everything the emulator knows, in memory, with every change written through
 * `persistence` before it is applied: a commit that returned is durable.
 * Commits are synchronous, so two requests never interleave inside one.
 */
export class Store {
  readonly organizations = new Map<string, OrganizationRow>();
  readonly keys = new Map<string, ApiKeyRow>();
  readonly #keysByHash = new Map<string, ApiKeyRow>();
  readonly agents = new Map<string, AgentRow>();
  readonly datastores = new Map<string, DatastoreRow>();
  readonly datasources = new Map<string, DatasourceRow>();
  readonly fragments = new Map<string, FragmentRow[]>();
  readonly conversations = new Map<string, ConversationRow>();
  readonly #indexes = new Map<string, FragmentIndex>();
  readonly #persistence: Persistence;
  #indexing = true;

  readonly #log: (message: string) => void;
  #snapshotWriting: Promise<void> = Promise.resolve();

  constructor(persistence: Persistence, options: { log?: (message: string) => void } = {}) {
    this.#persistence = persistence;
    this.#log = options.log ?? (() => {});
    const { snapshot, commits } = persistence.load();
    // Index once at the end instead of after every replayed change.
    this.#indexing = false;
    if (snapshot) this.#restore(snapshot);
    for (const changes of commits) for (const change of changes) this.#apply(change);
    this.#indexing = true;
    for (const [datasourceId, fragments] of this.fragments) {
      const datasource = this.datasources.get(datasourceId);
      if (datasource) this.index(datasource.datastoreId).replace(datasourceId, fragments);
    }
  }

  /**
   * Writes `changes` durably, then applies them. `analysed`: the fragments of the change that
   * adds fragments, analysed for the index beforehand (on a reader thread).
   */
  commit(changes: Change[], analysed?: AnalysedSlice): void {
    if (changes.length === 0) return;
    this.#persistence.append(changes);
    for (const change of changes) this.#apply(change, analysed);
    if (this.#persistence.wantsSnapshot()) {
      // Written in the background, a slice at a time: a snapshot of hundreds of megabytes in one go held every request for seconds.
      this.#snapshotWriting = this.#persistence
        .snapshotInBackground(() => this.#snapshotPieces())
        .catch((error: Error) => this.#log(`snapshot not written (the journal is kept; tried again later): ${error.message}`));
    }
  }

  /** Resolves once no snapshot is being written in the background. */
  async snapshotWritten(): Promise<void> {
    await this.#snapshotWriting;
  }

  /**
   * The state as JSON text, in pieces of at most a few hundred rows or fragments, each
   * serialized only when asked for: a background snapshot yields to the server between them.
   */
  *#snapshotPieces(): Generator<string> {
    const rows = function* (prefix: string, name: string, values: Iterable<unknown>): Generator<string> {
      yield `${prefix}${JSON.stringify(name)}:[`;
      let separator = '';
      let batch: unknown[] = [];
      for (const value of values) {
        batch.push(value);
        if (batch.length === SNAPSHOT_PIECE_ROWS) {
          yield separator + JSON.stringify(batch).slice(1, -1);
          separator = ',';
          batch = [];
        }
      }
      if (batch.length > 0) yield separator + JSON.stringify(batch).slice(1, -1);
      yield ']';
    };
    yield* rows('{', 'organizations', [...this.organizations.values()]);
    yield* rows(',', 'keys', [...this.keys.values()]);
    yield* rows(',', 'agents', [...this.agents.values()]);
    yield* rows(',', 'datastores', [...this.datastores.values()]);
    yield* rows(',', 'datasources', [...this.datasources.values()]);
    yield ',"fragments":[';
    let separator = '';
    for (const datasourceId of [...this.fragments.keys()]) {
      // Read when its turn comes: a list removed meanwhile is left out (its removal is in the new journal).
      const fragments = this.fragments.get(datasourceId);
      if (!fragments) continue;
      yield `${separator}{"datasourceId":${JSON.stringify(datasourceId)},`;
      separator = ',';
      yield* rows('', 'fragments', fragments.slice());
      yield '}';
    }
    yield ']';
    yield* rows(',', 'conversations', [...this.conversations.values()]);
    yield '}';
  }

  keyByHash(hash: string): ApiKeyRow | undefined {
    return this.#keysByHash.get(hash);
  }

  /** The search index of a datastore (empty when it has no fragments). */
  index(datastoreId: string): FragmentIndex {
    let index = this.#indexes.get(datastoreId);
    if (!index) {
      index = new FragmentIndex();
      this.#indexes.set(datastoreId, index);
    }
    return index;
  }

  datasourcesOf(datastoreId: string): DatasourceRow[] {
    return [...this.datasources.values()].filter((row) => row.datastoreId === datastoreId);
  }

  /** Uploaded files, kept beside the store so an interrupted ingestion can start again. */
  get files(): Pick<Persistence, 'writeFile' | 'readFile' | 'deleteFile' | 'fileIds'> {
    return this.#persistence;
  }

  /** Everything as one value, for a snapshot. */
  state(): StoreState {
    return {
      organizations: [...this.organizations.values()],
      keys: [...this.keys.values()],
      agents: [...this.agents.values()],
      datastores: [...this.datastores.values()],
      datasources: [...this.datasources.values()],
      fragments: [...this.fragments].map(([datasourceId, fragments]) => ({ datasourceId, fragments })),
      conversations: [...this.conversations.values()],
    };
  }

  /** Writes a snapshot now (on a clean shutdown, so the next start replays nothing). */
  compact(): void {
    this.#persistence.snapshot(this.state());
  }

  close(): void {
    this.#persistence.close();
  }

  #restore(state: StoreState): void {
    for (const row of state.organizations) this.#apply({ put: 'organization', row });
    for (const row of state.keys) this.#apply({ put: 'key', row });
    for (const row of state.agents) this.#apply({ put: 'agent', row });
    for (const row of state.datastores) this.#apply({ put: 'datastore', row });
    for (const row of state.datasources) this.#apply({ put: 'datasource', row });
    for (const { datasourceId, fragments } of state.fragments) this.#apply({ put: 'fragments', datasourceId, fragments });
    for (const row of state.conversations) this.#apply({ put: 'conversation', row });
  }

  #apply(change: Change, analysed?: AnalysedSlice): void {
    if ('put' in change) {
      switch (change.put) {
        case 'organization':
          this.organizations.set(change.row.id, change.row);
          return;
        case 'key': {
          const old = this.keys.get(change.row.id);
          if (old) this.#keysByHash.delete(old.hash);
          this.keys.set(change.row.id, change.row);
          this.#keysByHash.set(change.row.hash, change.row);
          return;
        }
        case 'agent':
          this.agents.set(change.row.id, change.row);
          return;
        case 'datastore':
          this.datastores.set(change.row.id, change.row);
          return;
        case 'datasource':
          this.datasources.set(change.row.id, change.row);
          return;
        case 'fragments': {
          this.fragments.set(change.datasourceId, change.fragments);
          const datasource = this.datasources.get(change.datasourceId);
          if (this.#indexing && datasource) this.index(datasource.datastoreId).replace(change.datasourceId, change.fragments);
          return;
        }
        case 'conversation':
          this.conversations.set(change.row.id, change.row);
          return;
      }
    }
    if ('add' in change) {
      const existing = this.fragments.get(change.datasourceId) ?? [];
      // Applied already (a replay): the slice is there.
      if (existing.length >= change.from + change.fragments.length) return;
      const datasource = this.datasources.get(change.datasourceId);
      if (existing.length === change.from) {
        // The next slice of an ingestion: added in place (a copy of the whole list per slice made 20,000 fragments quadratic).
        for (const fragment of change.fragments) existing.push(fragment);
        this.fragments.set(change.datasourceId, existing);
        if (this.#indexing && datasource) this.index(datasource.datastoreId).add(change.datasourceId, change.fragments, analysed);
        return;
      }
      const fragments = [...existing.slice(0, change.from), ...change.fragments];
      this.fragments.set(change.datasourceId, fragments);
      if (this.#indexing && datasource) this.index(datasource.datastoreId).replace(change.datasourceId, fragments);
      return;
    }
    if ('append' in change) {
      const conversation = this.conversations.get(change.conversationId);
      if (!conversation || conversation.messages.some((m) => m.id === change.message.id)) return;
      conversation.messages.push(change.message);
      conversation.updatedAt = change.updatedAt;
      return;
    }
    switch (change.delete) {
      case 'key': {
        const old = this.keys.get(change.id);
        if (old) this.#keysByHash.delete(old.hash);
        this.keys.delete(change.id);
        return;
      }
      case 'agent':
        this.agents.delete(change.id);
        return;
      case 'datastore':
        this.datastores.delete(change.id);
        this.#indexes.delete(change.id);
        return;
      case 'datasource':
        this.datasources.delete(change.id);
        return;
      case 'fragments': {
        this.fragments.delete(change.id);
        for (const index of this.#indexes.values()) index.remove(change.id);
        return;
      }
      case 'conversation':
        this.conversations.delete(change.id);
        return;
    }
  }
}
