import { LitElement, html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { citationDetails, citationsFrom, type Citation } from './citations.js';
import { ConversationController } from './conversation-controller.js';
import type { Turn } from './conversation-store.js';
import { styles } from './kagent-chat.styles.js';
import { ENGLISH, type ChatStrings } from './strings.js';

/** `streaming="false"` turns streaming off; absent or any other value leaves it on. */
const onUnlessFalse = {
  fromAttribute: (value: string | null) => value?.trim().toLowerCase() !== 'false',
  toAttribute: (value: boolean) => (value ? null : 'false'),
};

/**
 * A chat with a knowledge agent. The visitor asks; the answer streams in as
 * sanitized markdown with the sources it was grounded in. The conversation
 * survives a reload, and every failure is told in plain words with a way to
 * retry that sends the question once.
 *
 * @summary Chat with a knowledge agent, with streamed, cited answers.
 *
 * @csspart base - The chat's frame.
 * @csspart header - The bar holding "New conversation".
 * @csspart new-conversation - The "New conversation" button.
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
 * @cssproperty --kagent-radius - Corner radius of the frame and bubbles.
 * @cssproperty --kagent-font - Font family.
 * @cssproperty --kagent-max-height - Tallest the chat grows before the transcript scrolls (default 640px).
 */
export class KagentChat extends LitElement {
  static override styles = styles;

  // Static properties rather than decorators: nothing for the bundler to lower, and a smaller script-tag file.
  static override properties = {
    agentId: { attribute: 'agent-id', reflect: true },
    endpoint: { reflect: true },
    streaming: { converter: onUnlessFalse, reflect: true },
    strings: { attribute: false },
  };

  /** The agent to ask (`POST {endpoint}/agents/{agent-id}/query`). */
  agentId = '';

  /** Where questions go: the proxy's address, or the service itself for a public agent. */
  endpoint = '';

  /** Stream answers as they are written (default). `streaming="false"` asks for the whole answer as JSON. */
  streaming = true;

  /** Every text the chat shows, for another language or a site's own wording. */
  strings: ChatStrings = ENGLISH;

  #conversation = new ConversationController(this, {
    onRender: () => this.#followAnswer(),
    onSettled: (turn) => this.#announce(this.#outcomeText(turn)),
  });
  #stickToEnd = true;
  #announcement = '';

  /** The question box. */
  get #input(): HTMLTextAreaElement | null {
    return this.renderRoot.querySelector('textarea');
  }

  get #transcript(): HTMLElement | null {
    return this.renderRoot.querySelector('.transcript');
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('agentId') || changed.has('endpoint')) {
      this.#conversation.load();
      this.#stickToEnd = true;
      if (!this.#conversation.configured && this.isConnected) {
        console.error('kagent-chat: set both the agent-id and endpoint attributes, e.g. <kagent-chat agent-id="…" endpoint="https://your-site/api/kagent">.');
      }
    }
  }

  protected override updated(): void {
    this.#followAnswer();
  }

  override render(): TemplateResult {
    const s = this.strings;
    const conversation = this.#conversation;
    const turns = conversation.turns;
    return html`
      <section class="chat" part="base" aria-label=${s.chatLabel}>
        <div class="header" part="header">
          <button class="quiet" part="new-conversation" type="button" ?disabled=${!conversation.configured || turns.length === 0} @click=${this.#startOver}>
            ${s.newConversation}
          </button>
        </div>
        <div class="transcript" part="transcript" role="log" aria-live="off" @scroll=${this.#onScroll} @click=${this.#onTranscriptClick}>
          ${turns.length ? turns.map((turn) => this.#renderTurn(turn)) : html`<p class="empty">${conversation.configured ? s.emptyState : s.notConfigured}</p>`}
        </div>
        ${conversation.cooldown.active ? html`<p class="wait" part="wait">${s.retryIn(conversation.cooldown.remaining)}</p>` : nothing}
        <form part="form" @submit=${this.#onSubmit}>
          <label class="sr-only" for="question">${s.questionLabel}</label>
          <textarea id="question" part="input" rows="1" placeholder=${s.questionPlaceholder} ?disabled=${!conversation.configured} @keydown=${this.#onKeydown}></textarea>
          ${conversation.busy
            ? html`<button class="primary" part="stop" type="button" @click=${this.#stop}>${s.stop}</button>`
            : html`<button class="primary" part="send" type="submit" ?disabled=${!conversation.canAsk}>${s.send}</button>`}
        </form>
        <div class="sr-only" role="status" aria-live="polite">${this.#announcement}</div>
      </section>
    `;
  }

  #renderTurn(turn: Turn): TemplateResult {
    const s = this.strings;
    const body = this.#conversation.bodyOf(turn);
    const citations = turn.state === 'answered' ? citationsFrom(turn.sources) : [];
    return html`
      <article class="turn" part="turn">
        <p class="question" part="question"><span class="sr-only">${s.visitorSaid} </span>${turn.question}</p>
        ${turn.state === 'sending' ? html`<p class="note" part="status">${s.answering}</p>` : nothing}
        ${body && turn.answer
          ? html`<div class="answer" part="answer"><span class="sr-only">${s.agentSaid}</span>${body.element}</div>`
          : nothing}
        ${citations.length ? this.#renderSources(turn, citations) : nothing}
        ${turn.state === 'stopped' ? this.#renderNote(turn, s.answerStopped) : nothing}
        ${turn.state === 'failed' ? this.#renderFailure(turn) : nothing}
      </article>
    `;
  }

  #renderSources(turn: Turn, citations: Citation[]): TemplateResult {
    const s = this.strings;
    return html`
      <section class="sources" part="sources" aria-label=${s.sourcesHeading}>
        <h3>${s.sourcesHeading}</h3>
        <ol>
          ${citations.map(
            (citation) => html`
              <li part="source" tabindex="-1" data-source=${`${turn.id}-${citation.number}`}>
                ${citation.url
                  ? html`<a href=${citation.url} target="_blank" rel="noopener noreferrer">${citation.name ?? s.unnamedSource}</a>`
                  : citation.name ?? s.unnamedSource}${citationDetails(citation, s) ? ` · ${citationDetails(citation, s)}` : ''}
              </li>
            `,
          )}
        </ol>
      </section>
    `;
  }

  #renderNote(turn: Turn, note: string): TemplateResult {
    return html`
      <p class="failure note" part="note">
        ${note}
        <button class="quiet" part="retry" type="button" ?disabled=${!this.#conversation.canAsk} @click=${() => this.#retry(turn)}>${this.strings.retry}</button>
      </p>
    `;
  }

  #renderFailure(turn: Turn): TemplateResult {
    const s = this.strings;
    const failure = turn.failure ?? { kind: 'incomplete' as const };
    // A cut-off answer is the answer's own note; other failures say what happened to the question.
    let message = failure.kind === 'incomplete' && turn.answer ? s.answerIncomplete : s.failures[failure.kind];
    if (failure.kind === 'rate-limited') {
      const cooldown = this.#conversation.cooldown;
      message += ` ${cooldown.active ? s.retryIn(cooldown.remaining) : s.retryNow}`;
    }
    return html`
      <p class="failure" part="failure" data-kind=${failure.kind}>
        <span>${message}</span>
        <button class="quiet" part="retry" type="button" ?disabled=${!this.#conversation.canAsk} @click=${() => this.#retry(turn)}>${s.retry}</button>
      </p>
    `;
  }

  #onSubmit(event: Event): void {
    event.preventDefault();
    const input = this.#input;
    if (!input) return;
    if (this.#conversation.ask(input.value)) {
      input.value = '';
      this.#announce(this.strings.answering);
      this.#stickToEnd = true;
    }
  }

  #onKeydown(event: KeyboardEvent): void {
    // Enter sends, Shift+Enter adds a line; never mid-composition (IME).
    if (event.key !== 'Enter' || event.shiftKey || event.isComposing) return;
    event.preventDefault();
    this.renderRoot.querySelector('form')?.requestSubmit();
  }

  #retry(turn: Turn): void {
    if (this.#conversation.retry(turn.id)) {
      this.#announce(this.strings.answering);
      this.#stickToEnd = true;
    }
  }

  #stop(): void {
    this.#conversation.stop();
  }

  #startOver(): void {
    this.#conversation.startNewConversation();
    this.#announcement = '';
    this.#input?.focus();
  }

  /** What to tell a screen reader once a question is settled: failures, and notes; answers speak for themselves. */
  #outcomeText(turn: Turn): string {
    if (turn.state === 'stopped') return this.strings.answerStopped;
    if (turn.state !== 'failed') return '';
    const kind = turn.failure?.kind ?? 'incomplete';
    return kind === 'incomplete' && turn.answer ? this.strings.answerIncomplete : this.strings.failures[kind];
  }

  #announce(text: string): void {
    this.#announcement = text;
    this.requestUpdate();
  }

  #onScroll(): void {
    const transcript = this.#transcript;
    if (transcript) this.#stickToEnd = transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight < 40;
  }

  /** A citation marker without an address shows its source in the list. */
  #onTranscriptClick(event: Event): void {
    const marker = (event.target as Element).closest?.('button.citation');
    if (!(marker instanceof HTMLElement)) return;
    const turn = marker.closest('.turn');
    const source = turn?.querySelector<HTMLElement>(`li[part="source"]:nth-child(${Number(marker.dataset.citation)})`);
    source?.focus();
  }

  /** Keeps the newest words in view, unless the visitor scrolled up to read. */
  #followAnswer(): void {
    const transcript = this.#transcript;
    if (transcript && this.#stickToEnd) transcript.scrollTop = transcript.scrollHeight;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'kagent-chat': KagentChat;
  }
}
