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

// Rows (or fragments) serialized together in one piece of a background snapshot…
const SNAPSHOT_PIECE_ROWS = 256;
// …and a conversation's messages, up to about this many characters (a question may be 5 MB long).
const SNAPSHOT_PIECE_CHARS = 1024 * 1024;

/**
 * Told of every change to the fragments as it is applied: the search indexes follow the store
 * this way, so the store knows nothing of search. `Prepared`: what the committer worked out
 * beforehand for the fragments it adds (their terms, analysed on a reader thread), passed along.
 */
export interface FragmentsWatcher<Prepared> {
  /** A datasource's fragments are now `fragments`, replacing any it had. */
  set(datastoreId: string, datasourceId: string, fragments: readonly FragmentRow[]): void;
  /** More fragments of a datasource, after those it has. */
  add(datastoreId: string, datasourceId: string, fragments: readonly FragmentRow[], prepared: Prepared | undefined): void;
  /** A datasource's fragments are gone. */
  remove(datasourceId: string): void;
  /** A datastore is gone. */
  removeDatastore(datastoreId: string): void;
}

/**
 * Everything the emulator knows, in memory, with every change written through
 * `persistence` before it is applied: a commit that returned is durable.
 * Commits are synchronous, so two requests never interleave inside one.
 */
export class Store<Prepared = unknown> {
  readonly organizations = new Map<string, OrganizationRow>();
  readonly keys = new Map<string, ApiKeyRow>();
  readonly #keysByHash = new Map<string, ApiKeyRow>();
  readonly agents = new Map<string, AgentRow>();
  readonly datastores = new Map<string, DatastoreRow>();
  readonly datasources = new Map<string, DatasourceRow>();
  readonly fragments = new Map<string, FragmentRow[]>();
  readonly conversations = new Map<string, ConversationRow>();
  readonly #watcher: FragmentsWatcher<Prepared> | undefined;
  readonly #persistence: Persistence;
  #watching = true;

  readonly #log: (message: string) => void;
  #snapshotWriting: Promise<void> = Promise.resolve();

  constructor(persistence: Persistence, options: { log?: (message: string) => void; watcher?: FragmentsWatcher<Prepared> } = {}) {
    this.#persistence = persistence;
    this.#log = options.log ?? (() => {});
    this.#watcher = options.watcher;
    const { snapshot, commits } = persistence.load();
    // The watcher is told once at the end instead of after every replayed change.
    this.#watching = false;
    if (snapshot) this.#restore(snapshot);
    for (const changes of commits) for (const change of changes) this.#apply(change);
    this.#watching = true;
    for (const [datasourceId, fragments] of this.fragments) {
      const datasource = this.datasources.get(datasourceId);
      if (datasource) this.#watcher?.set(datasource.datastoreId, datasourceId, fragments);
    }
  }

  /**
   * Writes `changes` durably, then applies them. `prepared`: what the watcher is handed with
   * the change that adds fragments (worked out beforehand, on a reader thread).
   */
  commit(changes: Change[], prepared?: Prepared): void {
    if (changes.length === 0) return;
    this.#persistence.append(changes);
    for (const change of changes) this.#apply(change, prepared);
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
    yield ',"conversations":[';
    separator = '';
    for (const conversation of [...this.conversations.values()]) {
      yield separator;
      separator = ',';
      yield* conversationPieces(conversation);
    }
    yield ']}';
  }

  keyByHash(hash: string): ApiKeyRow | undefined {
    return this.#keysByHash.get(hash);
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

  #apply(change: Change, prepared?: Prepared): void {
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
          if (this.#watching && datasource) this.#watcher?.set(datasource.datastoreId, change.datasourceId, change.fragments);
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
        if (this.#watching && datasource) this.#watcher?.add(datasource.datastoreId, change.datasourceId, change.fragments, prepared);
        return;
      }
      const fragments = [...existing.slice(0, change.from), ...change.fragments];
      this.fragments.set(change.datasourceId, fragments);
      if (this.#watching && datasource) this.#watcher?.set(datasource.datastoreId, change.datasourceId, fragments);
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
        this.#watcher?.removeDatastore(change.id);
        return;
      case 'datasource':
        this.datasources.delete(change.id);
        return;
      case 'fragments': {
        this.fragments.delete(change.id);
        this.#watcher?.remove(change.id);
        return;
      }
      case 'conversation':
        this.conversations.delete(change.id);
        return;
    }
  }
}

/**
 * A conversation as JSON text, its messages about a megabyte at a time: serialized whole, 256
 * conversations to a piece, conversations of long questions held the server for as long as all
 * of them took (seven questions of 5 MB: 140 ms on a core).
 */
function* conversationPieces({ messages, ...row }: ConversationRow): Generator<string> {
  yield `${JSON.stringify(row).slice(0, -1)},"messages":[`;
  let piece = '';
  let separator = '';
  // Those appended while the snapshot is written are in the new journal.
  for (const message of messages.slice()) {
    piece += separator + JSON.stringify(message);
    separator = ',';
    if (piece.length >= SNAPSHOT_PIECE_CHARS) {
      yield piece;
      piece = '';
    }
  }
  yield `${piece}]}`;
}
