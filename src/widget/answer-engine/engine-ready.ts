// Part of the answer engine (the chat's second part): getting it ready once it has arrived, and each chat taking it in.
import { loadSanitizer } from './markdown/sanitize.js';
import { answerStyleSheet } from './answer.styles.js';
import type { PageChat } from './chat-in-use.js';
import { joinSessions } from './sessions/index.js';

/** Gets the second part ready, once, when it has arrived: its sanitizer (the browser's own, or DOMPurify's chunk). */
export function ready(): Promise<void> {
  return loadSanitizer();
}

const adopted = new WeakSet<PageChat>();

/** A chat takes in the second part, once it is here (called at each of its updates): the answers' styles join its own, and its visitor sessions are earned. */
export function adopt(chat: PageChat): void {
  if (adopted.has(chat)) return;
  adopted.add(chat);
  const root = chat.shadowRoot!;
  // (Where a browser cannot adopt sheets, Lit fell back to style elements; answers then go unstyled.)
  if (root.adoptedStyleSheets) root.adoptedStyleSheets = [...root.adoptedStyleSheets, answerStyleSheet()];
  joinSessions(chat);
}
