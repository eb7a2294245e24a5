import type { FeedbackRating, Source } from '../../protocol/index.js';
import { isValidQueryId } from '../../protocol/query-ids.js';
import { newId } from '../new-id.js';
import type { ChatFailure } from './failure-kinds.js';
import { ENGLISH } from './strings.js';

/** Bump when the stored shape changes; older shapes are then read as empty. */
export const STORE_VERSION = 1;
/** Turns kept across reloads (the newest). */
export const MAX_STORED_TURNS = 50;
/** Upper bound of one stored conversation, in characters of JSON. */
export const MAX_STORED_CHARS = 200_000;
// Room left in MAX_STORED_CHARS for the ids and the version around the turns.
const TURNS_BUDGET = MAX_STORED_CHARS - 1_000;

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
  /** Said with the answer: how many questions its visitor session has left, when few. */
  note?: string;
  /** The proxy's name for the question, where it records them: the answer's feedback goes with it. */
  questionId?: string;
  /** What the visitor said of the answer (its feedback buttons). */
  feedback?: TurnFeedback;
}

/** A visitor's rating of an answer, with what was missing (a thumbs-down's optional comment). */
export interface TurnFeedback {
  rating: FeedbackRating;
  comment?: string;
}

/** What is kept per endpoint and agent. */
export interface StoredConversation {
  version: typeof STORE_VERSION;
  visitorId: string;
  conversationId: string;
  turns: Turn[];
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

  /**
   * The stored conversation, or a new one when none is stored or it cannot be
   * read. Whatever is stored, what comes back is usable: ids the proxy would
   * refuse are replaced, and the turns are cut to the same bounds as when saving.
   */
  load(): StoredConversation {
    const stored = this.#read();
    if (stored) return stored;
    return { version: STORE_VERSION, visitorId: newId(), conversationId: newId(), turns: [] };
  }

  /** Stores the conversation, newest turns first when it must be cut to fit. */
  save(conversation: StoredConversation): void {
    const json = JSON.stringify({ ...conversation, turns: newestThatFit(conversation.turns, (turn) => turn) });
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

/**
 * Checks a stored value field by field: storage is shared with the site, and
 * anything may be there. Ids that fail the proxy's rule are replaced rather
 * than sent (the proxy would refuse every question); turns are read newest
 * first and only as many as a save would keep, so a huge transcript never
 * reaches the page.
 */
function readConversation(value: unknown): StoredConversation | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const { version, visitorId, conversationId, turns } = value as Record<string, unknown>;
  if (version !== STORE_VERSION) return undefined;
  const ids = new Set<string>();
  const read = Array.isArray(turns) ? newestThatFit(turns as unknown[], (turn) => readTurn(turn, ids)) : [];
  return {
    version: STORE_VERSION,
    visitorId: isValidQueryId(visitorId) ? visitorId : newId(),
    conversationId: isValidQueryId(conversationId) ? conversationId : newId(),
    turns: read,
  };
}

function readTurn(value: unknown, ids: Set<string>): Turn | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const { id, question, answer, sources, state, failure, questionId, feedback } = value as Record<string, unknown>;
  if (typeof question !== 'string' || typeof answer !== 'string') return undefined;
  if (!STATES.includes(state as TurnState)) return undefined;
  // Each turn's id keys its rendered answer: a strange or repeated one gets a new id.
  const turnId = isValidQueryId(id) && !ids.has(id) ? id : newId();
  ids.add(turnId);
  const turn: Turn = {
    id: turnId,
    question,
    answer,
    sources: Array.isArray(sources) ? sources.filter((s): s is Source => Boolean(s) && typeof s === 'object' && !Array.isArray(s)) : [],
    state: state as TurnState,
  };
  const readFailure = readStoredFailure(failure);
  if (readFailure) turn.failure = readFailure;
  // (The question id's shape and the comment's length are checked where they are sent, in the second part: the protocol's
  // checks live there, and the first part may import none of what it imports.)
  if (typeof questionId === 'string') turn.questionId = questionId;
  const { rating, comment } = (feedback ?? {}) as Record<string, unknown>;
  if (rating === 'up' || rating === 'down') turn.feedback = typeof comment === 'string' ? { rating, comment } : { rating };
  return turn;
}

/** Only the fields the chat shows or reports, each of its type. */
function readStoredFailure(value: unknown): ChatFailure | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const { kind, status, code, detail } = value as Record<string, unknown>;
  // A kind the chat has words for (a stored kind a later version dropped is not one).
  if (!Object.hasOwn(ENGLISH.failures, kind as string)) return undefined;
  const failure: ChatFailure = { kind: kind as ChatFailure['kind'] };
  if (Number.isInteger(status) && (status as number) >= 100 && (status as number) <= 599) failure.status = status as number;
  if (typeof code === 'string' && code.length <= 100) failure.code = code;
  if (typeof detail === 'string') failure.detail = detail.slice(0, 1_000);
  return failure;
}

/**
 * The newest turns, as many as fit MAX_STORED_TURNS and MAX_STORED_CHARS, in
 * order. Walks from the newest and stops there, so a stored list of any length
 * costs only what is kept; `read` skips (undefined) what is not a turn.
 */
function newestThatFit<T>(turns: readonly T[], read: (value: T) => Turn | undefined): Turn[] {
  const kept: Turn[] = [];
  let chars = 0;
  for (let index = turns.length - 1; index >= 0 && kept.length < MAX_STORED_TURNS; index--) {
    const turn = read(turns[index]!);
    if (!turn) continue;
    // (`chars` is 0 for the newest: it is given the whole budget.)
    const fitted = fitTurn(turn, TURNS_BUDGET - chars);
    if (!fitted) break;
    chars += fitted.chars;
    kept.push(fitted.turn);
  }
  return kept.reverse();
}

/**
 * The turn as stored within `budget` characters of JSON, or undefined when it
 * does not fit. A turn that does not fit even alone (only the newest is given
 * the whole budget) keeps the start of its question and answer, marked as cut
 * off, rather than being lost.
 */
function fitTurn(turn: Turn, budget: number): { turn: Turn; chars: number } | undefined {
  const chars = JSON.stringify(turn).length + 1;
  if (chars <= budget) return { turn, chars };
  if (budget < TURNS_BUDGET) return undefined;
  const cut: Turn = { id: turn.id, question: turn.question.slice(0, budget / 8), answer: turn.answer.slice(0, budget / 2), sources: [], state: 'failed', failure: { kind: 'incomplete' } };
  // JSON escapes can make a character up to 6 long: halve the answer until it fits.
  for (;;) {
    const cutChars = JSON.stringify(cut).length + 1;
    if (cutChars <= budget) return { turn: cut, chars: cutChars };
    if (!cut.answer && cut.question.length < 16) return undefined;
    cut.answer = cut.answer.slice(0, Math.floor(cut.answer.length / 2));
    cut.question = cut.question.slice(0, Math.ceil(cut.question.length / 2));
  }
}
