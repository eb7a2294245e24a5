/** The first block of a list: a quiet day's records take little room. */
const FIRST_BLOCK_BYTES = 4 * 1024;
/** Blocks grow with the list up to this: a busy day's records are a few hundred blocks. */
const MAX_BLOCK_BYTES = 256 * 1024;
/** Each value's UTF-8 length is written before it, in 4 bytes. */
const LENGTH_BYTES = 4;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A list of strings kept as UTF-8 bytes in a few blocks outside the JavaScript heap, each value after its length.
 * A garbage collector walks objects, and copies young ones while they survive: insights' records kept as strings
 * (one each, or one per append) were walked by every full collection and copied twice by the young one before
 * settling, which cost the proxy more than recording them, and more the more it held. In bytes they are a few
 * hundred objects for a busy day, however they were appended, and an append copies only its own values.
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
    for (const value of values) {
      if (!this.#write(value)) {
        this.#startBlock(value.length);
        this.#write(value);
      }
      this.#length++;
    }
  }

  /** Writes `value` into the current block; false (nothing kept) when it does not fit. */
  #write(value: string): boolean {
    const start = this.#used + LENGTH_BYTES;
    if (start > this.#current.length) return false;
    const { read, written } = encoder.encodeInto(value, this.#current.subarray(start));
    if (read < value.length) return false;
    const block = this.#current;
    const at = this.#used;
    block[at] = written >>> 24;
    block[at + 1] = (written >>> 16) & 255;
    block[at + 2] = (written >>> 8) & 255;
    block[at + 3] = written & 255;
    this.#used = start + written;
    this.#bytes += LENGTH_BYTES + written;
    return true;
  }

  /** Closes the current block and starts one that holds a value of `chars` UTF-16 units (at most 3 bytes each in UTF-8). */
  #startBlock(chars: number): void {
    if (this.#used > 0) this.#blocks.push(this.#current.subarray(0, this.#used));
    const size = Math.max(LENGTH_BYTES + chars * 3, Math.min(MAX_BLOCK_BYTES, Math.max(FIRST_BLOCK_BYTES, this.#bytes)));
    this.#current = new Uint8Array(size);
    this.#used = 0;
  }

  /** Every value, oldest first. */
  values(): string[] {
    const values: string[] = [];
    for (const block of [...this.#blocks, this.#current.subarray(0, this.#used)]) {
      for (let at = 0; at < block.length; ) {
        const length = ((block[at]! << 24) | (block[at + 1]! << 16) | (block[at + 2]! << 8) | block[at + 3]!) >>> 0;
        at += LENGTH_BYTES;
        values.push(decoder.decode(block.subarray(at, at + length)));
        at += length;
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
    this.push(kept);
    return removed;
  }
}
