// Part of the answer engine (the chat's second part): "Helpful?" with a thumbs-up and a thumbs-down under a finished
// answer, and after a thumbs-down one optional short field, "What was missing?". Drawn here, with the answer, so the
// first part, which every page view fetches, carries none of it.
import { FEEDBACK_COMMENT_MAX, type FeedbackRating } from '../../../protocol/index.js';
import type { Turn, TurnFeedback } from '../../element/conversation-store.js';
import type { KagentFeedbackDetail } from '../../element/events.js';
import type { PageChat } from '../chat-in-use.js';
import { makeElement } from '../make-element.js';
import { postFeedback } from './post.js';

/** The English words of the feedback buttons; a page's `strings` replace any of them. */
export const FEEDBACK_WORDS = {
  feedbackQuestion: 'Helpful?',
  feedbackUp: 'Helpful',
  feedbackDown: 'Not helpful',
  feedbackComment: 'What was missing?',
  feedbackThanks: 'Thanks for your feedback.',
};

/** The conversation an answer is in, as its feedback buttons use it (element/conversation-controller.ts). */
export interface FeedbackConversation {
  readonly conversationId: string | undefined;
  /** Keeps the visitor's choice with the turn (it survives a reload) and says `words` to a screen reader (the chat's announcer). */
  keepFeedback(turn: Turn, feedback: TurnFeedback, words: string): void;
}

const THUMB: Record<FeedbackRating, string> = { up: '👍', down: '👎' };

/**
 * Appends the feedback buttons of `turn`'s finished answer to `holder`, pressed as the visitor
 * chose before. Each choice (a thumb, a changed one, a comment sent) is kept, announced, and fired on `chat` as a
 * cancelable `kagent-feedback`; unless a listener prevents it, it goes to the proxy too, where the proxy collects feedback.
 * The chat's `feedback="off"` hides them (answer.styles.ts).
 */
export function offerFeedback(holder: Element, chat: PageChat, turn: Turn, conversation: FeedbackConversation): void {
  const say = (key: keyof typeof FEEDBACK_WORDS) => chat.strings[key] ?? FEEDBACK_WORDS[key];
  const make = (tag: string, attributes: Record<string, string>, ...children: (Node | string)[]) => makeElement(holder.ownerDocument, tag, attributes, ...children);
  const nameOf = (rating: FeedbackRating) => say(rating === 'up' ? 'feedbackUp' : 'feedbackDown');
  const thumb = (rating: FeedbackRating, attributes: { part: string }) => make('button', { type: 'button', class: 'quiet', 'aria-label': nameOf(rating), ...attributes }, THUMB[rating]);
  const up = thumb('up', { part: 'feedback-up' });
  const down = thumb('down', { part: 'feedback-down' });
  const field = make('input', { maxlength: String(FEEDBACK_COMMENT_MAX), part: 'feedback-comment' }) as HTMLInputElement;
  const form = make('form', { hidden: '' }, make('label', {}, say('feedbackComment'), ' ', field), make('button', { class: 'quiet' }, chat.strings.send));
  const question = make('span', { id: `feedback-${turn.id}` }, say('feedbackQuestion'));
  const pressed = () => {
    up.setAttribute('aria-pressed', String(turn.feedback?.rating === 'up'));
    down.setAttribute('aria-pressed', String(turn.feedback?.rating === 'down'));
  };

  // One post after another: the proxy keeps the last one it gets, which must be the visitor's last word.
  let posting = Promise.resolve();
  const choose = (feedback: TurnFeedback) => {
    conversation.keepFeedback(turn, feedback, `${nameOf(feedback.rating)}. ${say('feedbackThanks')}`);
    pressed();
    const { rating, comment } = feedback;
    const detail: KagentFeedbackDetail = { rating, comment, question: turn.question, answer: turn.answer, sources: turn.sources, conversationId: conversation.conversationId };
    const unprevented = chat.dispatchEvent(new CustomEvent('kagent-feedback', { detail, bubbles: true, composed: true, cancelable: true }));
    const { questionId } = turn;
    if (!unprevented || !questionId || !chat.endpoint) return;
    const endpoint = chat.endpoint;
    posting = posting.then(() => postFeedback(endpoint, comment ? { questionId, rating, comment } : { questionId, rating }, chat.proxyFeatures === 'off'));
  };
  // Pressing the chosen thumb again changes nothing (a thumbs-down opens its field again).
  up.onclick = () => {
    form.hidden = true;
    if (turn.feedback?.rating !== 'up') choose({ rating: 'up' });
  };
  down.onclick = () => {
    if (turn.feedback?.rating !== 'down') choose({ rating: 'down' });
    field.value = turn.feedback?.comment ?? '';
    form.hidden = false;
    field.focus();
  };
  form.onsubmit = (event) => {
    event.preventDefault();
    // (A comment restored from storage is as long as it was kept: the proxy takes FEEDBACK_COMMENT_MAX characters.)
    const comment = field.value.trim().slice(0, FEEDBACK_COMMENT_MAX);
    form.hidden = true;
    down.focus();
    if (comment !== (turn.feedback?.comment ?? '')) choose(comment ? { rating: 'down', comment } : { rating: 'down' });
  };
  // Escape closes the field, as the form's own way out.
  form.onkeydown = (event) => {
    if (event.key !== 'Escape') return;
    event.stopPropagation();
    form.hidden = true;
    down.focus();
  };
  pressed();
  holder.append(make('div', { class: 'feedback', part: 'feedback', role: 'group', 'aria-labelledby': question.id }, question, up, down, form));
}
