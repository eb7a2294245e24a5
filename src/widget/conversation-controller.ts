import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { askOnceLoaded } from './answer-engine-loader.js';
import type { AskOutcome } from './answer-request.js';
import { AnswerBody } from './answer-body.js';
import { ConversationStore, newId, type StoredConversation, type Turn } from './conversation-store.js';
import { CooldownController } from './cooldown-controller.js';
import type { ChatStrings } from './strings.js';

/** What the controller needs from the element. */
export interface ConversationHost extends ReactiveControllerHost {
  endpoint: string;
  agentId: string;
  streaming: boolean;
  strings: ChatStrings;
  queryOptions?: Record<string, unknown> | undefined;
}

/** How often a streaming answer is written to storage, so a reload keeps most of it. */
const SAVE_INTERVAL_MS = 1000;

/**
 * The conversation with one agent: its turns, asking (one question at a
 * time, exactly one request per question or Retry), Stop, the rate-limit
 * wait, and keeping it all in storage. Removing the element aborts the
 * answer under way.
 */
export class ConversationController implements ReactiveController {
  readonly cooldown: CooldownController;
  #host: ConversationHost;
  #store: ConversationStore | undefined;
  #conversation: StoredConversation | undefined;
  #bodies = new Map<string, AnswerBody>();
  #inFlight: { turnId: string; abort: AbortController } | undefined;
  #lastSave = 0;
  #onRender: () => void;
  #onSettled: (turn: Turn) => void;

  constructor(host: ConversationHost, { onRender, onSettled }: { onRender: () => void; onSettled: (turn: Turn) => void }) {
    this.#host = host;
    this.#onRender = onRender;
    this.#onSettled = onSettled;
    this.cooldown = new CooldownController(host);
    host.addController(this);
  }

  /** The id of the conversation shown (the service's, once it answered). */
  get conversationId(): string | undefined {
    return this.#conversation?.conversationId;
  }

  get turns(): readonly Turn[] {
    return this.#conversation?.turns ?? [];
  }

  /** Whether the element knows where to ask. */
  get configured(): boolean {
    return Boolean(this.#host.endpoint && this.#host.agentId);
  }

  /** A question is on its way or being answered. */
  get busy(): boolean {
    return this.#inFlight !== undefined;
  }

  get canAsk(): boolean {
    return this.configured && !this.busy && !this.cooldown.active;
  }

  /** The rendered answer of a turn. */
  bodyOf(turn: Turn): AnswerBody | undefined {
    return this.#bodies.get(turn.id);
  }

  /** Loads the conversation kept for the current endpoint and agent. */
  load(): void {
    this.#abort();
    this.#bodies.clear();
    if (!this.configured) {
      this.#store = undefined;
      this.#conversation = undefined;
      return;
    }
    this.#store = new ConversationStore(this.#host.endpoint, this.#host.agentId);
    const conversation = this.#store.load();
    // The newest answers are the ones in view: they render first.
    for (const turn of [...conversation.turns].reverse()) {
      // Cut short by a reload: keep what arrived and offer Retry.
      if (turn.state === 'sending' || turn.state === 'answering') {
        turn.state = 'failed';
        turn.failure = { kind: 'incomplete' };
      }
      if (turn.answer) {
        const sources = turn.state === 'answered' ? turn.sources : [];
        this.#bodies.set(turn.id, AnswerBody.restored(turn.answer, sources, this.#host.strings, this.#onRender));
      }
    }
    this.#conversation = conversation;
    this.#host.requestUpdate();
  }

  /** Sends a new question. Returns false when it cannot be sent now. */
  ask(question: string): boolean {
    const text = question.trim();
    if (!text || !this.canAsk || !this.#conversation) return false;
    const turn: Turn = { id: newId(), question: text, answer: '', sources: [], state: 'sending' };
    this.#conversation.turns.push(turn);
    void this.#send(turn);
    return true;
  }

  /** Sends a failed or stopped question again, once. */
  retry(turnId: string): boolean {
    const turn = this.#conversation?.turns.find((t) => t.id === turnId);
    if (!turn || !this.canAsk || (turn.state !== 'failed' && turn.state !== 'stopped')) return false;
    void this.#send(turn);
    return true;
  }

  /** Stops the answer under way; what arrived is kept. */
  stop(): void {
    this.#inFlight?.abort.abort();
  }

  /** Starts over: a new conversation id and an empty transcript (the visitor id stays). */
  startNewConversation(): void {
    if (!this.#conversation || !this.#store) return;
    this.#abort();
    this.#bodies.clear();
    this.#conversation = { ...this.#conversation, conversationId: newId(), turns: [] };
    this.#store.save(this.#conversation);
    this.#host.requestUpdate();
  }

  hostConnected(): void {}

  hostDisconnected(): void {
    this.#abort();
  }

  #abort(): void {
    this.#inFlight?.abort.abort();
    this.#inFlight = undefined;
  }

  async #send(turn: Turn): Promise<void> {
    const conversation = this.#conversation!;
    const store = this.#store!;
    turn.state = 'sending';
    turn.answer = '';
    turn.sources = [];
    delete turn.failure;
    let body = new AnswerBody(this.#onRender);
    this.#bodies.set(turn.id, body);
    const abort = new AbortController();
    const inFlight = { turnId: turn.id, abort };
    this.#inFlight = inFlight;
    store.save(conversation);
    this.#host.requestUpdate();

    // The request is in the chat's second part: a question asked before it arrived is sent, once, when it does.
    const outcome: AskOutcome = await askOnceLoaded({
      endpoint: this.#host.endpoint,
      agentId: this.#host.agentId,
      query: turn.question,
      conversationId: conversation.conversationId,
      visitorId: conversation.visitorId,
      streaming: this.#host.streaming,
      queryOptions: this.#host.queryOptions,
      signal: abort.signal,
      onText: (fragment) => {
        turn.answer += fragment;
        body.append(fragment);
        if (turn.state === 'sending') {
          turn.state = 'answering';
          this.#host.requestUpdate();
        }
        this.#saveNowAndThen(store, conversation);
      },
    });
    if (this.#inFlight === inFlight) this.#inFlight = undefined;

    const strings = this.#host.strings;
    if (outcome.type === 'answered') {
      if (outcome.answer !== turn.answer) {
        // The text came only in the final JSON (no fragments): show it whole.
        body = new AnswerBody(this.#onRender);
        body.append(outcome.answer);
        this.#bodies.set(turn.id, body);
      }
      turn.answer = outcome.answer;
      turn.state = 'answered';
      const response = outcome.response;
      if (response) {
        turn.sources = response.sources ?? [];
        if (response.conversationId) conversation.conversationId = response.conversationId;
        if (response.visitorId) conversation.visitorId = response.visitorId;
      }
    } else {
      turn.answer = outcome.partialAnswer || turn.answer;
      turn.state = outcome.type;
      if (outcome.type === 'failed') {
        turn.failure = outcome.failure;
        if (outcome.failure.retryAfter) this.cooldown.start(outcome.failure.retryAfter);
        if (outcome.failure.detail) console.warn(`kagent-chat: ${outcome.failure.kind}${outcome.failure.status ? ` (${outcome.failure.status})` : ''}: ${outcome.failure.detail}`);
      }
    }
    // Only a conversation still shown is kept: "New conversation" or a new agent may have replaced it.
    if (this.#conversation === conversation) store.save(conversation);
    this.#host.requestUpdate();
    await body.finish(turn.state === 'answered' ? turn.sources : [], strings);
    // Told once the answer is fully on screen, so what is announced is what is shown.
    this.#onSettled(turn);
    this.#host.requestUpdate();
  }

  #saveNowAndThen(store: ConversationStore, conversation: StoredConversation): void {
    const now = Date.now();
    if (now - this.#lastSave < SAVE_INTERVAL_MS) return;
    this.#lastSave = now;
    store.save(conversation);
  }
}
