/**
 * `<kagent-chat>`: importing this module defines the element.
 * The classes and helpers are exported for typed use and for part 2's API.
 *
 * The element imports its second part (request, markdown, sanitizer) with a
 * dynamic `import()` (`element/answer-engine-loader.ts`), so a bundler makes it a chunk
 * of its own. `askAgent`, `IncrementalMarkdown` and `renderMarkdown` below are
 * static exports of that part: a bundler drops them unless the page imports them
 * (every module here but this one is free of side effects, `package.json`
 * `sideEffects`); `loadAnswerEngine()` gives them without a static import.
 */
import { KagentChat } from './element/kagent-chat.js';

export { KagentChat };
export type { KagentAnswerDetail, KagentChatEventMap, KagentErrorDetail, KagentFeedbackDetail, KagentSendDetail } from './element/events.js';
export type { KagentChatAttributes, KagentChatListeners, KagentChatProperties } from './framework-types.js';
export { ENGLISH, formatSeconds, withStrings, type ChatStrings, type ChatStringsOverride } from './element/strings.js';
export { FAILURE_KINDS, type ChatFailure, type FailureKind } from './element/failure-kinds.js';
export { askAgent, queryUrl, type AskOptions, type AskOutcome } from './answer-engine/answer-request.js';
export { ConversationStore, STORE_VERSION, MAX_STORED_TURNS, MAX_STORED_CHARS, type StoredConversation, type Turn, type TurnFeedback, type TurnState } from './element/conversation-store.js';
export { IncrementalMarkdown, renderMarkdown, renderMarkdownSoFar, type RenderStats } from './answer-engine/markdown/incremental-markdown.js';
export { citationsFrom, type Citation } from './answer-engine/citations.js';
export { loadAnswerEngine, type AnswerEngine } from './element/answer-engine-loader.js';
export type { LoadingMode } from './element/answer-engine-controller.js';

if (typeof customElements !== 'undefined' && !customElements.get('kagent-chat')) {
  customElements.define('kagent-chat', KagentChat);
}
