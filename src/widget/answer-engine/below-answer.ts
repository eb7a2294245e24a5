// Part of the answer engine (the chat's second part): what goes under an answer, drawn with it so the first part
// carries none of it: the list of its sources, and under a finished answer its feedback buttons.
import type { Turn } from '../element/conversation-store.js';
import type { PageChat } from './chat-in-use.js';
import { offerFeedback, type FeedbackConversation } from './feedback/buttons.js';
import { renderSources } from './sources-list.js';

/** Fills `holder` (the box under `turn`'s answer) with its sources, and under a finished answer its feedback buttons. */
export function renderBelow(holder: Element, chat: PageChat, turn: Turn, conversation: FeedbackConversation): void {
  if (turn.state !== 'answered') return;
  renderSources(holder, turn.sources, chat.strings, turn.id);
  offerFeedback(holder, chat, turn, conversation);
}
