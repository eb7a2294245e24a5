// The chat waits for its sanitizer itself (loadAnswerEngine); a test that calls the renderer
// directly imports this first. Where the browser has no sanitizer of its own (web-test-runner's
// dompurify group hides it), that is DOMPurify, fetched from its chunk.
import { loadSanitizer } from '../../src/widget/answer-engine/markdown/sanitize.js';

await loadSanitizer();
