/**
 * The chat's second part: what only an answer needs (the request that streams
 * it, the markdown renderer with marked and the sanitizer (the browser's own,
 * or DOMPurify from a chunk of its own where there is none), the `[n]` citation
 * links, the list of sources, the feedback buttons under an answer, the styles of what they draw, and the visitor
 * session a proxy may ask of each question). The element fetches it on first need with a dynamic import
 * (`element/answer-engine-loader.ts`), so a page whose visitor never opens the chat
 * never pays for it.
 *
 * Nothing here may import a module the first part imports: bundled, this is a
 * chunk of its own that must need nothing from the file that loaded it (a
 * script tag with `?ver=2` in its address would otherwise be fetched again
 * under the plain one). test/browser/widget-build.test.ts checks the chunk,
 * test/node/widget-parts.test.ts the imports between the two folders.
 */
export { askAgent, queryUrl } from './answer-request.js';
export { askWithStoredIds } from './stored-ids.js';
export { IncrementalMarkdown, renderMarkdown } from './markdown/incremental-markdown.js';
export { adopt, ready } from './engine-ready.js';
export { linkCitationMarkers } from './citation-markers.js';
export { citationLinks } from './citations.js';
export { renderBelow } from './below-answer.js';
export { watchSiteModals } from './site-modals.js';
