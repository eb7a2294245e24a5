/** Longest name kept, in UTF-8 bytes (what file systems and most services allow). */
export const MAX_NAME_BYTES = 255;

// C0 and C1 controls, and the invisible marks that reorder or hide text (bidi embeddings,
// overrides and isolates, directional marks): a name shows as written, never as something else.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/**
 * A name as the emulator keeps it: control and bidi characters removed, spaces trimmed, cut
 * to at most 255 UTF-8 bytes on a character boundary. `fallback` when nothing is left.
 */
export function cleanName(name: string, fallback: string): string {
  let cleaned = name.replace(UNSAFE, '').trim();
  if (Buffer.byteLength(cleaned, 'utf8') > MAX_NAME_BYTES) {
    let bytes = 0;
    let end = 0;
    for (const char of cleaned) {
      const size = Buffer.byteLength(char, 'utf8');
      if (bytes + size > MAX_NAME_BYTES) break;
      bytes += size;
      end += char.length;
    }
    cleaned = cleaned.slice(0, end).trimEnd();
  }
  return cleaned || fallback;
}
