/**
 * `<kagent-chat>`: importing this module defines the element.
 * The classes and helpers are exported for typed use and for part 2's API.
 */
import { KagentChat } from './kagent-chat.js';

export { KagentChat };
export type { KagentAnswerDetail, KagentChatEventMap, KagentErrorDetail, KagentSendDetail } from './kagent-chat.js';
export type { KagentChatAttributes, KagentChatListeners, KagentChatProperties } from './framework-types.js';
export { ENGLISH, formatSeconds, withStrings, type ChatStrings, type ChatStringsOverride } from './strings.js';
export { FAILURE_KINDS, type ChatFailure, type FailureKind } from './failures.js';
export { askAgent, queryUrl, type AskOptions, type AskOutcome } from './answer-request.js';
export { ConversationStore, STORE_VERSION, MAX_STORED_TURNS, MAX_STORED_CHARS, type StoredConversation, type Turn, type TurnState } from './conversation-store.js';
export { IncrementalMarkdown, renderMarkdown, renderMarkdownSoFar, type RenderStats } from './markdown/incremental-markdown.js';
export { citationsFrom, type Citation } from './citations.js';

if (typeof customElements !== 'undefined' && !customElements.get('kagent-chat')) {
  customElements.define('kagent-chat', KagentChat);
}
