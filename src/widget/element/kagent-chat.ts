import { LitElement, html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { AnnouncerController } from './announcer-controller.js';
import { AnswerEngineController } from './answer-engine-controller.js';
import { BubbleController } from './bubble-controller.js';
import { ConversationController } from './conversation-controller.js';
import type { Turn } from './conversation-store.js';
import { CopyFeedbackController } from './copy-feedback-controller.js';
import type { KagentChatEventMap } from './events.js';
import { listAttribute, onUnlessFalse } from './attributes.js';
import { styles } from './kagent-chat.styles.js';
import { modeStyles } from './modes.styles.js';
import { PinnedScrollController } from './pinned-scroll-controller.js';
import { ENGLISH, withStrings, type ChatStrings, type ChatStringsOverride } from './strings.js';
import { renderQuestionForm } from './question-form.js';
import { failureOf, renderTranscript } from './transcript-view.js';
import { WelcomeMessage } from './welcome-message.js';

/**
 * A chat with a knowledge agent. The visitor asks; the answer streams in as
 * sanitized markdown with the sources it was grounded in. The conversation
 * survives a reload, and every failure is told in plain words with a way to
 * retry that sends the question once.
 *
 * `mode="inline"` (default) fills its container; `mode="bubble"` is a
 * launcher button in a corner of the window that opens the chat as a panel
 * (full screen on a small screen). Escape closes it. The bubble is drawn in
 * the browser's top layer, so no CSS of the page (z-index, transforms,
 * overflow, resets) can move, clip or cover it.
 *
 * The chat comes in two parts: the first draws it and takes questions; the
 * second (request, markdown renderer and sanitizer, citation links) is fetched
 * as `loading` says, and at the latest when first needed. A question asked
 * before it arrives is sent, once, as soon as it does.
 *
 * @summary Chat with a knowledge agent, with streamed, cited answers.
 *
 * @attribute feedback - `on` (default): "Helpful?" with a thumbs-up and a thumbs-down under each finished answer (`kagent-feedback`; sent to kagent-proxy where it collects feedback). `off` hides them (an attribute only: the answers' styles read it).
 *
 * @fires kagent-send - A question is about to be sent (`detail`: `question`, `retry`). Cancelable: `preventDefault()` keeps it from being sent.
 * @fires kagent-answer - An answer is complete (`detail`: `question`, `answer` (markdown), `sources`, `conversationId`).
 * @fires kagent-error - A question failed (`detail`: `question`, `kind`, `status`, `code`, `message`).
 * @fires kagent-feedback - The visitor rated an answer, changed their rating, or wrote what was missing (`detail`: `rating` `up` or `down`, `comment`, `question`, `answer`, `sources`, `conversationId`). Cancelable: `preventDefault()` keeps it from the proxy (a page sends it to its own analytics).
 * @fires kagent-open - The bubble's chat opened.
 * @fires kagent-close - The bubble's chat closed.
 *
 * @csspart base - The chat's frame (the panel, in bubble mode).
 * @csspart launcher - The bubble's round button that opens and closes the chat.
 * @csspart header - The bar with the heading, "New conversation" and (bubble) Close.
 * @csspart heading - The chat's title.
 * @csspart new-conversation - The "New conversation" button.
 * @csspart close - The bubble's Close button in the header.
 * @csspart welcome - The welcome message at the top of the transcript.
 * @csspart suggestions - The starter questions, shown until the first question.
 * @csspart suggestion - One starter question.
 * @csspart copy - The Copy button under an answer.
 * @csspart feedback - "Helpful?" and its thumbs under a finished answer (`feedback="off"` hides it).
 * @csspart feedback-up - The thumbs-up button (`aria-pressed` once chosen).
 * @csspart feedback-down - The thumbs-down button (`aria-pressed` once chosen).
 * @csspart feedback-comment - The optional "What was missing?" field a thumbs-down opens.
 * @csspart transcript - The scrolling list of questions and answers.
 * @csspart turn - One question with its answer.
 * @csspart question - The visitor's question.
 * @csspart answer - An answer, with its notes.
 * @csspart answer-text - The rendered markdown of an answer.
 * @csspart citation - A `[n]` marker linking to a source.
 * @csspart citation-card - The source shown on hover and focus of a marker.
 * @csspart sources - The list of sources under an answer.
 * @csspart source - One source.
 * @csspart status - "Answering…" while waiting for the first words.
 * @csspart note - Says an answer was cut off or stopped.
 * @csspart failure - What went wrong with a question.
 * @csspart retry - The Retry button of a failed or stopped question.
 * @csspart form - The question form.
 * @csspart input - The question box.
 * @csspart send - The Send button.
 * @csspart stop - The Stop button, shown while an answer comes in.
 * @csspart wait - The countdown after too many questions.
 *
 * @cssproperty --kagent-accent - Buttons, links and citation markers.
 * @cssproperty --kagent-accent-text - Text on accent-coloured buttons.
 * @cssproperty --kagent-text - Main text colour.
 * @cssproperty --kagent-muted - Secondary text (sources, notes).
 * @cssproperty --kagent-surface - Background of the chat.
 * @cssproperty --kagent-question-surface - Background of the visitor's questions.
 * @cssproperty --kagent-border - Borders and table lines.
 * @cssproperty --kagent-danger - Failure messages.
 * @cssproperty --kagent-code-surface - Background of code blocks.
 * @cssproperty --kagent-focus - Focus outline colour.
 * @cssproperty --kagent-radius - Corner radius of the frame and bubbles.
 * @cssproperty --kagent-font - Font family.
 * @cssproperty --kagent-max-height - Tallest the inline chat grows before the transcript scrolls (default 640px).
 * @cssproperty --kagent-panel-width - Width of the bubble's panel (default 380px).
 * @cssproperty --kagent-panel-height - Height of the bubble's panel (default 560px).
 * @cssproperty --kagent-launcher-size - Diameter of the launcher (default 56px).
 * @cssproperty --kagent-launcher-surface - Launcher background (default the accent).
 * @cssproperty --kagent-launcher-text - Launcher icon colour (default the accent text).
 * @cssproperty --kagent-offset - Distance of the launcher from the window's edges (default 20px).
 * @cssproperty --kagent-z-index - Stacking level of the bubble in a browser without the Popover API's top layer (default 2147483000).
 */
export class KagentChat extends LitElement {
  static override styles = [styles, modeStyles];

  // Static properties rather than decorators: nothing for the bundler to lower, and a smaller script-tag file.
  static override properties = {
    agentId: { attribute: 'agent-id', reflect: true },
    endpoint: { reflect: true },
    streaming: { converter: onUnlessFalse, reflect: true },
    strings: { attribute: false, noAccessor: true },
    mode: { reflect: true },
    position: { reflect: true },
    opened: { type: Boolean, reflect: true, attribute: 'open' },
    theme: { reflect: true },
    heading: {},
    placeholder: {},
    welcome: {},
    suggestions: { converter: listAttribute },
    queryOptions: { attribute: false },
    loading: { reflect: true },
    proxyFeatures: { attribute: 'proxy-features' },
  };

  /** The agent to ask (`POST {endpoint}/agents/{agent-id}/query`). */
  agentId = '';
  /** Where questions go: the proxy's address, or the service itself for a public agent. */
  endpoint = '';
  /** Stream answers as they are written (default). `streaming="false"` asks for the whole answer as JSON. */
  streaming = true;
  /** `inline` fills its container; `bubble` is a launcher in a corner that opens the chat as a panel. */
  mode: 'inline' | 'bubble' = 'inline';
  /** The bubble's corner: `bottom-end` (default), `bottom-start`, `top-end`, `top-start`, or `bottom-right`, `bottom-left`, `top-right`, `top-left`. Start and end follow the text direction. */
  position = 'bottom-end';
  /** Whether the bubble's chat is open (attribute `open`). */
  opened = false;
  /** `light` or `dark` forces a theme; `auto` (default) follows the visitor's `prefers-color-scheme`. */
  theme: 'auto' | 'light' | 'dark' = 'auto';
  /** The chat's title (default the `heading` string, "Assistant"). */
  heading = '';
  /** Placeholder of the question box (default the `questionPlaceholder` string). */
  placeholder = '';
  /** A welcome message at the top of the transcript, in markdown (sanitized like answers). */
  welcome = '';
  /** Starter questions, shown as buttons until the first question. Attribute: `A|B|C` or a JSON array. */
  suggestions: string[] = [];
  /**
   * When the chat fetches its second part (the streaming request, the markdown renderer and sanitizer, the citation links): `idle` (default) once the page
   * has loaded and the browser is idle, `eager` at once, `interaction` only when first needed. Whatever the setting, it is fetched at once when needed: the
   * pointer over the chat or focus in it (the launcher hovered or focused), the bubble opened, a question sent, a stored conversation or a welcome message with markup to show.
   */
  loading: 'eager' | 'idle' | 'interaction' = 'idle';
  /**
   * `auto` (default): the chat asks the endpoint once (`GET {endpoint}/features`, kept by the browser a day) what it serves beyond
   * questions, as kagent-proxy answers (visitor sessions). `off`: for an endpoint that is not kagent-proxy; the chat asks nothing
   * (a question the endpoint refuses for want of a visitor session still turns sessions on).
   */
  proxyFeatures: 'auto' | 'off' = 'auto';
  /** Further fields for the query body, e.g. `{ filters: {...} }`, for endpoints that allow them. The chat's own fields (`query`, `streaming`, `conversationId`, `visitorId`) win. */
  queryOptions: Record<string, unknown> | undefined;

  #strings: ChatStrings = ENGLISH;
  /** Every text the chat shows or announces (English by default), the words of visitor sessions, the site's daily budget and the human check included. Set any of them, for another language or a site's own wording; the rest stay English. */
  get strings(): ChatStrings {
    return this.#strings;
  }
  set strings(value: ChatStringsOverride | undefined) {
    const old = this.#strings;
    this.#strings = withStrings(value);
    this.requestUpdate('strings', old);
  }

  #answerEngine = new AnswerEngineController(this);
  #conversation = new ConversationController(this, { onRender: () => this.#pinned.follow(), onSettled: (turn) => this.#settled(turn), announce: (words) => this.#announcer.announce(words) });
  #announcer = new AnnouncerController(this);
  #copy = new CopyFeedbackController(this, () => this.#announcer.announce(this.strings.copied));
  #bubble = new BubbleController(this);
  // Last: it scrolls once the others have updated the DOM.
  #pinned: PinnedScrollController = new PinnedScrollController(this, () => this.renderRoot.querySelector('.transcript'));
  #welcome = new WelcomeMessage();

  /** Asks `text` as if the visitor typed it. Returns false when it cannot be sent now (empty, busy, not set up, waiting after a rate limit, or a `kagent-send` listener cancelled it). */
  send(text: string): boolean {
    const question = text.trim();
    if (!question || !this.#conversation.canAsk || !this.#emit('kagent-send', { question, retry: false }, true)) return false;
    this.#conversation.ask(question);
    this.#announcer.announce(this.strings.answering);
    this.#pinned.pin();
    return true;
  }

  /** Stops the answer under way; what arrived is kept. */
  stop(): void {
    this.#conversation.stop();
  }

  /** Starts a new conversation with an empty transcript. */
  newConversation(): void {
    this.#conversation.startNewConversation();
    this.#announcer.clear();
  }

  /** Opens the bubble's chat (fires `kagent-open`). */
  open(): void {
    this.opened = true;
  }

  /** Closes the bubble's chat (fires `kagent-close`); focus inside it returns to the launcher. */
  close(): void {
    this.opened = false;
  }

  /** Opens or closes the bubble's chat. */
  toggle(): void {
    this.opened = !this.opened;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('agentId') || changed.has('endpoint')) {
      this.#conversation.load();
      this.#pinned.pin();
      if (!this.#conversation.configured && this.isConnected) console.error('kagent-chat: set both the agent-id and endpoint attributes.');
    }
  }

  protected override updated(changed: PropertyValues<this>): void {
    // The first render is the page's choice, not a change to announce.
    if (changed.has('opened') && changed.get('opened') !== undefined) this.#emit(this.opened ? 'kagent-open' : 'kagent-close', undefined);
  }

  override render(): TemplateResult {
    const s = this.strings;
    const conversation = this.#conversation;
    const bubble = this.mode === 'bubble';
    const welcome = this.#welcome.nodes(this.welcome, this.#answerEngine, !bubble || this.opened);
    const chat = html`
      <section id="chat" class="chat" part="base" role=${bubble ? 'dialog' : nothing} aria-label=${s.chatLabel} ?hidden=${bubble && !this.opened}>
        <div class="header" part="header">
          <h2 part="heading">${this.heading || s.heading}</h2>
          <button class="quiet" part="new-conversation" type="button" ?disabled=${!conversation.turns.length} @click=${this.#startOver}>
            ${s.newConversation}
          </button>
          ${this.#bubble.renderClose()}
        </div>
        <div class="transcript" part="transcript" role="log" aria-live="off">
          ${renderTranscript({ strings: s, conversation, copy: this.#copy, welcome, suggestions: this.suggestions, onSuggest: this.#suggest, onRetry: this.#retry })}
        </div>
        ${conversation.cooldown.active ? html`<p class="wait" part="wait">${s.retryIn(conversation.cooldown.remaining)}</p>` : nothing}
        ${renderQuestionForm({ strings: s, conversation, placeholder: this.placeholder, onSubmit: this.#onSubmit, onKeydown: this.#onKeydown, onPrimary: this.#onPrimary })}
        ${this.#announcer.render()}
      </section>
    `;
    return this.#bubble.render(chat);
  }

  #onSubmit(event: Event): void {
    event.preventDefault();
    const input = this.renderRoot.querySelector('textarea');
    if (input && this.send(input.value)) input.value = '';
  }

  #emit<K extends keyof KagentChatEventMap>(type: K, detail: KagentChatEventMap[K]['detail'], cancelable = false): boolean {
    return this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true, cancelable }));
  }

  #onKeydown(event: KeyboardEvent): void {
    // Enter sends, Shift+Enter adds a line; never the Enter that confirms an IME composition (Safari sends it after compositionend: isComposing false, keyCode 229).
    if (event.key !== 'Enter' || event.shiftKey || event.isComposing || event.keyCode === 229) return;
    event.preventDefault();
    this.renderRoot.querySelector('form')?.requestSubmit();
  }

  #retry = (turn: Turn): void => {
    if (!this.#conversation.canAsk || !this.#emit('kagent-send', { question: turn.question, retry: true }, true) || !this.#conversation.retry(turn.id)) return;
    this.#announcer.announce(this.strings.answering);
    this.#pinned.pin();
  };

  /** Stop while an answer comes in; otherwise the button submits the form. */
  #onPrimary(event: Event): void {
    if (!this.#conversation.busy) return;
    event.preventDefault();
    this.stop();
  }

  /** A starter question: asked, with focus left in the question box (the button goes away). */
  #suggest = (question: string): void => {
    this.send(question);
    this.renderRoot.querySelector('textarea')?.focus({ preventScroll: true });
  };

  #startOver(): void {
    this.newConversation();
    this.renderRoot.querySelector('textarea')?.focus();
  }

  /** A settled question: its event, and what a screen reader hears once: the whole answer, or what went wrong. */
  #settled(turn: Turn): void {
    const s = this.strings;
    if (turn.state === 'answered') {
      this.#emit('kagent-answer', { question: turn.question, answer: turn.answer, sources: turn.sources, conversationId: this.#conversation.conversationId });
      return this.#announcer.announce(`${s.agentSaid} ${this.#conversation.bodyOf(turn)?.element.textContent ?? turn.answer} ${turn.note ?? ''}`);
    }
    if (turn.state === 'stopped') return this.#announcer.announce(s.answerStopped);
    const { failure, message } = failureOf(turn, s);
    this.#emit('kagent-error', { question: turn.question, kind: failure.kind, status: failure.status, code: failure.code, message });
    this.#announcer.announce(message);
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'kagent-chat': KagentChat;
  }
}
