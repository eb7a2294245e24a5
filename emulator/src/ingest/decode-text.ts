import { IngestError } from './errors.js';
import { looksLikeSuffix, recogniseFileKind } from './file-kind.js';

const SAMPLE_LENGTH = 64 * 1024;
// More control characters than this share of a sample means binary data, not text.
const MAX_CONTROL_SHARE = 0.05;

/**
 * The text of a text file (`label` names it for errors, e.g. "CSV file"): UTF-8 or UTF-16 by
 * byte-order mark, UTF-8 otherwise, Windows-1252 when the bytes are not valid UTF-8.
 * Binary data is refused with an `IngestError` that says what it looks like.
 */
export function decodeText(bytes: Uint8Array, label: string): string {
  const bom = byteOrderMark(bytes);
  if (bom) return normaliseNewlines(new TextDecoder(bom.encoding).decode(bytes.subarray(bom.length)));

  const kind = recogniseFileKind(bytes);
  if (kind && !kind.startsWith('an RTF')) throw new IngestError(`not a ${label}${looksLikeSuffix(bytes)}`);
  if (bytes.subarray(0, SAMPLE_LENGTH).includes(0)) throw new IngestError(`not a ${label}: it contains binary data`);

  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    text = new TextDecoder('windows-1252').decode(bytes);
  }
  if (controlShare(text.slice(0, SAMPLE_LENGTH)) > MAX_CONTROL_SHARE) {
    throw new IngestError(`not a ${label}: it contains binary data`);
  }
  return normaliseNewlines(text);
}

function byteOrderMark(bytes: Uint8Array): { encoding: string; length: number } | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: 'utf-8', length: 3 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  return undefined;
}

function controlShare(sample: string): number {
  if (sample.length === 0) return 0;
  let control = 0;
  for (let index = 0; index < sample.length; index++) {
    const code = sample.charCodeAt(index);
    // Tab, newline, form feed and carriage return are ordinary in text.
    if ((code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0c && code !== 0x0d) || code === 0x7f || code === 0xfffd) {
      control++;
    }
  }
  return control / sample.length;
}

/** `\r\n` and lone `\r` become `\n`, so offsets and line splits mean the same on every platform. */
export function normaliseNewlines(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}
