/**
 * The script-tag build's entry (`dist/kagent-chat.js`, an ES module):
 * `<script type="module" src=".../kagent-chat.js">` defines `<kagent-chat>`.
 * A page's own module can import from it: the element's class, the English
 * strings and `withStrings`, and `loadAnswerEngine()`, which gives the second
 * part (`askAgent`, `IncrementalMarkdown`, `renderMarkdown`…), a chunk beside
 * this file, fetched from this file's own address. The rest of the npm entry's
 * exports are for bundlers; each export here costs every page a few bytes.
 */
export { KagentChat, ENGLISH, withStrings, loadAnswerEngine } from './index.js';
