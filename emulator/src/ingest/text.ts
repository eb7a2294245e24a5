import { decodeText } from './decode-text.js';
import type { ExtractedDocument } from './document.js';

/** A plain text file, as it is. */
export function extractPlainText(bytes: Uint8Array): ExtractedDocument {
  return { pages: [{ text: decodeText(bytes, 'text file') }] };
}
