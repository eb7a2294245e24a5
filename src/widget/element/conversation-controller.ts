import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { newId } from '../new-id.js';
import { askOnceLoaded } from './answer-engine-loader.js';
import { AnswerBody } from './answer-body.js';
import { ConversationStore, type StoredConversation, type Turn, type TurnFeedback } from './conversation-store.js';
import { CooldownController } from './cooldown-controller.js';
import type { ChatStrings } from './strings.js';

/** What the controller needs from the element (the second part's feedback buttons fire their event on it too). */
export interface ConversationHost extends ReactiveControllerHost, HTMLElement {
  endpoint: string;
  agentId: string;
  streaming: boolean;
  strings: ChatStrings;
  queryOptions?: Record<string, unknown> | undefined;
  proxyFeatures: 'auto' | 'off';
}

/** How often a streaming answer is written to storage, so a reload keeps most of it. */
const SAVE_INTERVAL_MS = 1000;

/**
 * The conversation with one agent: its turns, asking (one question at a
 * time, exactly one request per question or Retry), Stop, the rate-limit
 * wait, and keeping it all in storage. Removing the element aborts the
 * answer under way.
 *
 * Leaving the page does not: a browser that keeps the page in its
 * back/forward cache lets the answer go on arriving and shows it on the way
 * back. What arrived is written to storage as the page is hidden, so a page
 * the browser did not keep (or dropped while it was away) shows it on
 * return, cut off, with Retry; the question is never sent again by itself.
 */
export class ConversationController implements ReactiveController {
  readonly cooldown: CooldownController;
  #host: ConversationHost;
  #store: ConversationStore | undefined;
  #conversation: StoredConversation | undefined;
  #bodies = new Map<string, AnswerBody>();
  /** Aborts the question on its way or being answered. */
  #inFlight: AbortController | undefined;
  #lastSave = 0;
  /** The answers' rendering was stopped when the element was removed. */
  #bodiesStopped?: boolean;
  #onRender: () => void;
  #onSettled: (turn: Turn) => void;
  #announce: (words: string) => void;

  /** `announce`: says the visitor's feedback on an answer to a screen reader. */
  constructor(host: ConversationHost, { onRender, onSettled, announce }: { onRender: () => void; onSettled: (turn: Turn) => void; announce: (words: string) => void }) {
    this.#host = host;
    this.#onRender = onRender;
    this.#onSettled = onSettled;
    this.#announce = announce;
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
    for (const turn of conversation.turns) {
      // Cut short by a reload: keep what arrived and offer Retry.
      if (turn.state === 'sending' || turn.state === 'answering') {
        turn.state = 'failed';
        turn.failure = { kind: 'incomplete' };
      }
    }
    this.#conversation = conversation;
    this.#restoreBodies();
  }

  /** Renders the stored answers again, whole, the newest first (they are the ones in view). */
  #restoreBodies(): void {
    for (const turn of [...this.turns].reverse()) {
      if (turn.answer) this.#bodies.set(turn.id, AnswerBody.restored(this.#host, turn, this, this.#onRender));
    }
    this.#host.requestUpdate();
  }

  /** Keeps the visitor's feedback on an answer with its turn (the second part's buttons ask it), and says `words` to a screen reader. */
  keepFeedback(turn: Turn, feedback: TurnFeedback, words: string): void {
    turn.feedback = feedback;
    this.#store?.save(this.#conversation!);
    this.#announce(words);
  }

  /** Sends a new question (trimmed, not empty: the element's `send` sees to it). Returns false when it cannot be sent now. */
  ask(question: string): boolean {
    if (!this.canAsk || !this.#conversation) return false;
    const turn: Turn = { id: newId(), question, answer: '', sources: [], state: 'sending' };
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
    this.#inFlight?.abort();
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

  hostConnected(): void {
    addEventListener('pagehide', this.#keepBeforeLeaving);
    document.addEventListener('visibilitychange', this.#keepBeforeLeaving);
    if (!this.#bodiesStopped) return;
    // Put back (a moved element): answers whose rendering stopped on removal render again, whole.
    this.#bodiesStopped = false;
    this.#restoreBodies();
  }

  hostDisconnected(): void {
    removeEventListener('pagehide', this.#keepBeforeLeaving);
    document.removeEventListener('visibilitychange', this.#keepBeforeLeaving);
    this.#abort();
    // A removed element does no more work: no answer keeps rendering frame after frame.
    for (const body of this.#bodies.values()) body.stop();
    this.#bodiesStopped = this.#bodies.size > 0;
  }

  /**
   * The page is being left or hidden (pagehide; on a phone, hidden may be the
   * last event before the tab is discarded): an answer under way is written
   * to storage now, not at the next once-a-second save.
   */
  #keepBeforeLeaving = (event: Event): void => {
    if (event.type === 'visibilitychange' && document.visibilityState !== 'hidden') return;
    // A question in flight is always of the conversation and store shown (load() aborts it before replacing them).
    if (!this.#inFlight) return;
    this.#store!.save(this.#conversation!);
    this.#lastSave = Date.now();
  };

  #abort(): void {
    this.#inFlight?.abort();
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
    this.#inFlight = abort;
    store.save(conversation);
    this.#host.requestUpdate();

    // The request is in the chat's second part: a question asked before it arrived is sent, once, when it does.
    const outcome = await askOnceLoaded({
      endpoint: this.#host.endpoint,
      agentId: this.#host.agentId,
      query: turn.question,
      conversationId: conversation.conversationId,
      visitorId: conversation.visitorId,
      streaming: this.#host.streaming,
      queryOptions: this.#host.queryOptions,
      proxyFeatures: this.#host.proxyFeatures,
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
    // Kept at once: a refused id replaced must not come back with a reload.
    }, (ids) => {
      Object.assign(conversation, ids);
      if (this.#conversation === conversation) store.save(conversation);
    });
    if (this.#inFlight === abort) this.#inFlight = undefined;

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
      turn.note = outcome.note;
      turn.questionId = outcome.questionId;
      turn.sources = outcome.response?.sources ?? [];
      body.showBelow(this.#host, turn, this);
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
    await body.finish(turn.state === 'answered' ? turn.sources : [], strings, turn.state !== 'answered');
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
