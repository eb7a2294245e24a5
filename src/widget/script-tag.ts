/**
 * The script-tag build's entry (`dist/kagent-chat.js`, an ES module):
 * `<script type="module" src=".../kagent-chat.js">` defines `<kagent-chat>`.
 * It exports what needs no markdown engine; the engine (`askAgent`,
 * `IncrementalMarkdown`, `renderMarkdown`) is a chunk beside it, fetched from
 * this file's own address on first need, or with `loadAnswerEngine()`.
 */
export {
  KagentChat,
  ENGLISH,
  formatSeconds,
  withStrings,
  FAILURE_KINDS,
  ConversationStore,
  STORE_VERSION,
  MAX_STORED_TURNS,
  MAX_STORED_CHARS,
  citationsFrom,
  loadAnswerEngine,
} from './index.js';
