import { html, type TemplateResult } from 'lit';
import type { ConversationController } from './conversation-controller.js';
import type { ChatStrings } from './strings.js';

/** What the question form reads from the element, and the element's handlers for it (Lit calls them with the element as `this`). */
export interface QuestionFormView {
  strings: ChatStrings;
  conversation: ConversationController;
  placeholder: string;
  onSubmit: (event: Event) => void;
  onKeydown: (event: KeyboardEvent) => void;
  onPrimary: (event: Event) => void;
}

/** The question box and its one button: Send, then Stop while an answer comes in (focus on it stays put). */
export function renderQuestionForm(view: QuestionFormView): TemplateResult {
  const { strings: s, conversation } = view;
  const busy = conversation.busy;
  return html`
    <form part="form" @submit=${view.onSubmit}>
      <label class="sr-only" for="question">${s.questionLabel}</label>
      <textarea id="question" part="input" rows="1" placeholder=${view.placeholder || s.questionPlaceholder} ?disabled=${!conversation.configured} @keydown=${view.onKeydown}></textarea>
      <button class="primary" part=${busy ? 'stop' : 'send'} type=${busy ? 'button' : 'submit'} ?disabled=${!busy && !conversation.canAsk} @click=${view.onPrimary}>
        ${busy ? s.stop : s.send}
      </button>
    </form>
  `;
}
