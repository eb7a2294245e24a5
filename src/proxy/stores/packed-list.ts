/** The first block of a list: a quiet day's records take little room. */
const FIRST_BLOCK_BYTES = 4 * 1024;
/** Blocks grow with the list up to this: a busy day's records are a few hundred blocks. */
const MAX_BLOCK_BYTES = 256 * 1024;
/** Each length (a group's count, each value's UTF-16 length, the group's UTF-8 length) is written in 4 bytes. */
const LENGTH_BYTES = 4;

const encoder = new TextEncoder();
// A value may start with U+FEFF: kept, not taken for a byte order mark.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * A list of strings kept as UTF-8 bytes in a few blocks outside the JavaScript heap. A garbage collector walks
 * objects, and copies young ones while they survive: insights' records kept as strings (one each, or one per append)
 * were walked by every full collection and copied twice by the young one before settling, which cost the proxy more
 * than recording them, and more the more it held. In bytes they are a few hundred objects for a busy day, however
 * they were appended. Each append is kept as one group: how many values, each one's length in UTF-16 units, then
 * the values joined, as UTF-8, after its byte length: one encoding call an append rather than one a value (the call
 * cost more than the copy), and one decoding call a group when read, cut by those lengths.
 */
export class PackedList {
  /** Full blocks, each cut to the bytes it holds; then the block being filled. */
  #blocks: Uint8Array[] = [];
  #current = new Uint8Array(0);
  #used = 0;
  #bytes = 0;
  #length = 0;

  /** How many values the list holds. */
  get length(): number {
    return this.#length;
  }

  /** Adds `values` at the end, in order. */
  push(values: readonly string[]): void {
    if (values.length === 0) return;
    const text = values.length === 1 ? values[0]! : values.join('');
    if (!this.#write(values, text)) {
      this.#startBlock(values.length, text.length);
      this.#write(values, text);
    }
    this.#length += values.length;
  }

  /** Writes the group into the current block; false (nothing kept) when it does not fit. */
  #write(values: readonly string[], text: string): boolean {
    const textAt = this.#used + LENGTH_BYTES * (values.length + 2);
    if (textAt > this.#current.length) return false;
    const { read, written } = encoder.encodeInto(text, this.#current.subarray(textAt));
    if (read < text.length) return false;
    let at = this.#writeLength(this.#used, values.length);
    for (const value of values) at = this.#writeLength(at, value.length);
    this.#writeLength(at, written);
    this.#bytes += textAt + written - this.#used;
    this.#used = textAt + written;
    return true;
  }

  #writeLength(at: number, length: number): number {
    const block = this.#current;
    block[at] = length >>> 24;
    block[at + 1] = (length >>> 16) & 255;
    block[at + 2] = (length >>> 8) & 255;
    block[at + 3] = length & 255;
    return at + LENGTH_BYTES;
  }

  /** Closes the current block and starts one that holds a group of `count` values, `chars` UTF-16 units in all (at most 3 bytes each in UTF-8). */
  #startBlock(count: number, chars: number): void {
    if (this.#used > 0) this.#blocks.push(this.#current.subarray(0, this.#used));
    const size = Math.max(LENGTH_BYTES * (count + 2) + chars * 3, Math.min(MAX_BLOCK_BYTES, Math.max(FIRST_BLOCK_BYTES, this.#bytes)));
    this.#current = new Uint8Array(size);
    this.#used = 0;
  }

  /** Every value, oldest first. */
  values(): string[] {
    const values: string[] = [];
    for (const block of [...this.#blocks, this.#current.subarray(0, this.#used)]) {
      const length = (at: number) => ((block[at]! << 24) | (block[at + 1]! << 16) | (block[at + 2]! << 8) | block[at + 3]!) >>> 0;
      for (let at = 0; at < block.length; ) {
        const count = length(at);
        const lengthsAt = at + LENGTH_BYTES;
        const textAt = lengthsAt + LENGTH_BYTES * (count + 1);
        const bytes = length(textAt - LENGTH_BYTES);
        // Decoded UTF-8 gives as many UTF-16 units as were encoded (a lone surrogate became U+FFFD, one unit too).
        const text = decoder.decode(block.subarray(textAt, textAt + bytes));
        for (let i = 0, from = 0; i < count; i++) {
          const chars = length(lengthsAt + LENGTH_BYTES * i);
          values.push(text.slice(from, from + chars));
          from += chars;
        }
        at = textAt + bytes;
      }
    }
    return values;
  }

  /** Takes every copy of these values out; gives how many went. */
  remove(going: ReadonlySet<string>): number {
    const kept = this.values().filter((value) => !going.has(value));
    const removed = this.#length - kept.length;
    this.#blocks = [];
    this.#current = new Uint8Array(0);
    this.#used = 0;
    this.#bytes = 0;
    this.#length = 0;
    // Put back a hundred at a time, as the recorder appends them: no group as large as the list.
    for (let i = 0; i < kept.length; i += 100) this.push(kept.slice(i, i + 100));
    return removed;
  }
}
