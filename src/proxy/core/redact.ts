// Removes the API key from anything the proxy passes on or writes down, so
// even a service that echoes the key back cannot make the proxy leak it.
import { concatBytes } from './bytes.js';

export const REDACTED = '[REDACTED]';

/** The secrets as they may appear in text: raw, and URI-encoded as stream fragments are. Empty ones are left out. */
export function keyForms(secrets: string | readonly string[]): string[] {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  return [...new Set(list.filter(Boolean).flatMap((secret) => [secret, encodeURIComponent(secret)]))];
}

/** The forms of the last secrets redacted: a proxy has one set, and every answer is redacted. */
let known: { secrets: string | readonly string[]; forms: readonly string[] } | undefined;

/** `text` with every form of each secret (the API key, the session secrets) replaced by `[REDACTED]`. */
export function redactText(text: string, secrets: string | readonly string[]): string {
  if (known?.secrets !== secrets) known = { secrets, forms: keyForms(secrets) };
  let out = text;
  for (const form of known.forms) if (out.includes(form)) out = out.split(form).join(REDACTED);
  return out;
}

/**
 * Redacts a byte stream chunk by chunk without buffering it: only a chunk's
 * tail that could be the start of the key is held back until the next chunk.
 */
export class ByteRedactor {
  readonly #forms: Uint8Array[];
  readonly #replacement = new TextEncoder().encode(REDACTED);
  #carry: Uint8Array = new Uint8Array(0);

  constructor(key: string) {
    const encoder = new TextEncoder();
    this.#forms = keyForms(key).map((form) => encoder.encode(form));
  }

  /** The bytes of `chunk` that can safely go on now. */
  push(chunk: Uint8Array): Uint8Array {
    let data = this.#carry.length ? concatBytes([this.#carry, chunk]) : chunk;
    for (const form of this.#forms) data = replaceAll(data, form, this.#replacement);
    const hold = this.#heldTail(data);
    this.#carry = data.slice(data.length - hold);
    return hold ? data.subarray(0, data.length - hold) : data;
  }

  /** What is still held back, at the end of the stream. */
  flush(): Uint8Array {
    const rest = this.#carry;
    this.#carry = new Uint8Array(0);
    return rest;
  }

  // Length of the longest tail of `data` that is a proper prefix of a key form.
  #heldTail(data: Uint8Array): number {
    let longest = 0;
    for (const form of this.#forms) {
      for (let length = Math.min(form.length - 1, data.length); length > longest; length--) {
        if (startsWithAt(data, data.length - length, form, length)) {
          longest = length;
          break;
        }
      }
    }
    return longest;
  }
}

function startsWithAt(data: Uint8Array, at: number, form: Uint8Array, length: number): boolean {
  for (let i = 0; i < length; i++) if (data[at + i] !== form[i]) return false;
  return true;
}

function replaceAll(data: Uint8Array, form: Uint8Array, replacement: Uint8Array): Uint8Array {
  const first = form[0];
  let at = data.indexOf(first!);
  if (at === -1) return data;
  const parts: Uint8Array[] = [];
  let from = 0;
  while (at !== -1 && at + form.length <= data.length) {
    if (startsWithAt(data, at, form, form.length)) {
      parts.push(data.subarray(from, at), replacement);
      from = at + form.length;
      at = data.indexOf(first!, from);
    } else at = data.indexOf(first!, at + 1);
  }
  if (parts.length === 0) return data;
  parts.push(data.subarray(from));
  return concatBytes(parts);
}
