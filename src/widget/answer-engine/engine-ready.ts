import { loadSanitizer } from './markdown/sanitize.js';
import { prepareSessions } from './session-gate.js';

/**
 * Gets the second part ready, once, when it has arrived: its sanitizer (the
 * browser's own, or DOMPurify's chunk), and the visitor sessions of the chats
 * on the page, earned in idle time where the proxy asks for them.
 */
export function ready(): Promise<void> {
  prepareSessions();
  return loadSanitizer();
}
