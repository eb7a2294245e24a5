import { html, nothing, type TemplateResult } from 'lit';
import type { ConversationController } from './conversation-controller.js';
import type { Turn } from './conversation-store.js';
import type { CopyFeedbackController } from './copy-feedback-controller.js';
import type { ChatFailure } from './failure-kinds.js';
import type { ChatStrings } from './strings.js';

/** What the transcript's templates read from the element, and the element's handlers for its buttons. */
export interface TranscriptView {
  strings: ChatStrings;
  conversation: ConversationController;
  copy: CopyFeedbackController;
  /** The welcome message's nodes, if there is one. */
  welcome: Node[] | undefined;
  suggestions: readonly string[];
  onSuggest: (question: string) => void;
  onRetry: (turn: Turn) => void;
}

/** What the transcript shows: the welcome message, then the turns, or before the first question the empty state and the starter questions. */
export function renderTranscript(view: TranscriptView): unknown[] {
  const { strings: s, conversation, welcome } = view;
  const turns = conversation.turns;
  return [
    welcome ? html`<div class="welcome markdown" part="welcome">${welcome}</div>` : nothing,
    turns.length
      ? turns.map((turn) => renderTurn(turn, view))
      : welcome && conversation.configured
        ? nothing
        : html`<p class="empty" dir="auto">${conversation.configured ? s.emptyState : s.notConfigured}</p>`,
    !turns.length && conversation.configured && view.suggestions.length
      ? html`<div class="suggestions" part="suggestions" role="group" aria-label=${s.suggestionsLabel}>
          ${view.suggestions.map((question) => html`<button class="quiet" part="suggestion" type="button" ?disabled=${!conversation.canAsk} @click=${() => view.onSuggest(question)}>${question}</button>`)}
        </div>`
      : nothing,
  ];
}

/**
 * What went wrong with a failed question, in the words the visitor is shown
 * (and `kagent-error` carries): a cut-off answer is the answer's own note;
 * other failures say what happened to the question.
 */
export function failureOf(turn: Turn, strings: ChatStrings): { failure: ChatFailure; message: string } {
  const failure = turn.failure ?? { kind: 'incomplete' };
  return { failure, message: failure.message ?? (failure.kind === 'incomplete' && turn.answer ? strings.answerIncomplete : strings.failures[failure.kind]) };
}

/** One question with its answer, its sources, Copy, and what became of it. */
function renderTurn(turn: Turn, view: TranscriptView): TemplateResult {
  const { strings: s, conversation, copy } = view;
  const body = conversation.bodyOf(turn);
  const retry = html`<button class="quiet" part="retry" type="button" ?disabled=${!conversation.canAsk} @click=${() => view.onRetry(turn)}>${s.retry}</button>`;
  return html`
    <article class="turn" part="turn">
      <p class="question" part="question" dir="auto"><span class="sr-only">${s.visitorSaid} </span>${turn.question}</p>
      ${turn.state === 'sending' ? html`<p class="note" part="status">${s.answering}</p>` : nothing}
      ${body && turn.answer
        ? html`<div class="answer" part="answer"><span class="sr-only">${s.agentSaid}</span>${body.element}</div>`
        : nothing}
      ${body ? body.below : nothing}
      ${turn.answer && turn.state !== 'sending' && turn.state !== 'answering'
        ? html`<button class="quiet copy" part="copy" type="button" @click=${() => copy.copy(turn.id, turn.answer)}>${copy.isCopied(turn.id) ? s.copied : s.copy}</button>`
        : nothing}
      ${turn.note && html`<p class="note" part="note">${turn.note}</p>`}
      ${turn.state === 'stopped' ? html`<p class="failure note" part="note">${s.answerStopped} ${retry}</p>` : nothing}
      ${turn.state === 'failed' ? renderFailure(turn, view, retry) : nothing}
    </article>
  `;
}

function renderFailure(turn: Turn, view: TranscriptView, retry: TemplateResult): TemplateResult {
  const { strings: s } = view;
  const cooldown = view.conversation.cooldown;
  let { failure, message } = failureOf(turn, s);
  if (failure.kind === 'rate-limited') message += ` ${cooldown.active ? s.retryIn(cooldown.remaining) : s.retryNow}`;
  return html`<p class="failure" part="failure" data-kind=${failure.kind}><span>${message}</span> ${retry}</p>`;
}
