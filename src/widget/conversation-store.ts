import type { Source } from '../protocol/index.js';
import { FAILURE_KINDS, type ChatFailure } from './failure-kinds.js';

/** Bump when the stored shape changes; older shapes are then read as empty. */
export const STORE_VERSION = 1;
/** Turns kept across reloads (the newest). */
export const MAX_STORED_TURNS = 50;
/** Upper bound of one stored conversation, in characters of JSON. */
export const MAX_STORED_CHARS = 200_000;

export type TurnState = 'sending' | 'answering' | 'answered' | 'failed' | 'stopped';

/** One question and what became of it. */
export interface Turn {
  id: string;
  question: string;
  /** The answer's markdown, or the part that arrived. */
  answer: string;
  sources: Source[];
  state: TurnState;
  failure?: ChatFailure;
}

/** What is kept per endpoint and agent. */
export interface StoredConversation {
  version: typeof STORE_VERSION;
  visitorId: string;
  conversationId: string;
  turns: Turn[];
}

/** Random ids, also where `crypto.randomUUID` is unavailable (pages not served over https). */
export function newId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

// Where storage is unusable, conversations live here for the life of the page.
const memory = new Map<string, string>();

/**
 * Keeps a visitor's conversation with one agent at one endpoint in
 * localStorage, so it survives a reload. Keys are namespaced by endpoint and
 * agent: two agents on one site never share a conversation. Storage that
 * throws (private mode, quota, disabled) falls back to memory.
 */
export class ConversationStore {
  readonly key: string;
  #storage: Storage | undefined;

  constructor(endpoint: string, agentId: string, storage: () => Storage | undefined = () => window.localStorage) {
    this.key = `kagent-chat:${encodeURIComponent(absoluteEndpoint(endpoint))}:${encodeURIComponent(agentId)}`;
    try {
      this.#storage = storage();
    } catch {
      this.#storage = undefined;
    }
  }

  /** Whether conversations only last as long as the page (storage unusable). */
  get inMemory(): boolean {
    return this.#storage === undefined;
  }

  /** The stored conversation, or a new one when none is stored or it cannot be read. */
  load(): StoredConversation {
    const stored = this.#read();
    if (stored) return stored;
    return { version: STORE_VERSION, visitorId: newId(), conversationId: newId(), turns: [] };
  }

  /** Stores the conversation, newest turns first when it must be cut to fit. */
  save(conversation: StoredConversation): void {
    let turns = conversation.turns.slice(-MAX_STORED_TURNS);
    let json = JSON.stringify({ ...conversation, turns });
    while (json.length > MAX_STORED_CHARS && turns.length > 1) {
      turns = turns.slice(1);
      json = JSON.stringify({ ...conversation, turns });
    }
    memory.set(this.key, json);
    if (!this.#storage) return;
    try {
      this.#storage.setItem(this.key, json);
    } catch {
      // Quota or a disabled store: keep going in memory rather than break the chat.
      this.#storage = undefined;
    }
  }

  #read(): StoredConversation | undefined {
    let json: string | null | undefined;
    if (this.#storage) {
      try {
        json = this.#storage.getItem(this.key);
      } catch {
        this.#storage = undefined;
      }
    }
    json ??= memory.get(this.key);
    if (!json) return undefined;
    try {
      return readConversation(JSON.parse(json));
    } catch {
      return undefined;
    }
  }
}

function absoluteEndpoint(endpoint: string): string {
  try {
    return new URL(endpoint, document.baseURI).href.replace(/\/+$/, '');
  } catch {
    return endpoint;
  }
}

const STATES: readonly TurnState[] = ['sending', 'answering', 'answered', 'failed', 'stopped'];

/** Checks a stored value field by field: storage is shared with the site, anything may be there. */
function readConversation(value: unknown): StoredConversation | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const { version, visitorId, conversationId, turns } = value as Record<string, unknown>;
  if (version !== STORE_VERSION || typeof visitorId !== 'string' || typeof conversationId !== 'string' || !Array.isArray(turns)) return undefined;
  const read: Turn[] = [];
  for (const turn of turns as unknown[]) {
    if (!turn || typeof turn !== 'object') continue;
    const { id, question, answer, sources, state, failure } = turn as Record<string, unknown>;
    if (typeof id !== 'string' || typeof question !== 'string' || typeof answer !== 'string') continue;
    if (typeof state !== 'string' || !STATES.includes(state as TurnState)) continue;
    const restored: Turn = { id, question, answer, sources: Array.isArray(sources) ? sources.filter((s) => s && typeof s === 'object') : [], state: state as TurnState };
    if (failure && typeof failure === 'object' && FAILURE_KINDS.includes((failure as ChatFailure).kind)) restored.failure = failure as ChatFailure;
    read.push(restored);
  }
  return { version: STORE_VERSION, visitorId, conversationId, turns: read };
}
