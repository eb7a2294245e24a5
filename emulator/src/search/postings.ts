import { FIELDS, type AnalysedFragments } from './fields.js';

// The inverted index of one datastore, in a few typed arrays: for each term, the fragments
// holding it and its count in each field, in chained blocks of one shared pool; for each
// fragment, its field lengths and its distinct terms (to take it out again). About 8 bytes per
// distinct term of a fragment, where an index of small objects (one per term, per field, per
// posting) took hundreds.

const FIELD_COUNT = FIELDS.length;
/** A block: [next block (0: none), entries used, capacity], then `capacity` entries of [key, counts]. */
const HEADER = 3;
const FIRST_BLOCK = 1;
const LARGEST_BLOCK = 1024;
/** `tidy` writes the arrays again only when they take more than this much of the room their entries need. */
const SLACK = 1.1;
/** Entries copied between two yields of a compaction in steps (a few milliseconds' work). */
const STEP_ENTRIES = 65_536;

/** A term's counts in the three fields, packed in 32 bits: the text's in 16, each title's in 8 (capped: a title repeats a word a few times at most). */
function pack(text: number, heading: number, section: number): number {
  return (Math.min(text, 0xffff) | (Math.min(heading, 0xff) << 16) | (Math.min(section, 0xff) << 24)) >>> 0;
}

/** Field `field`'s count in packed `counts`. */
export function countIn(counts: number, field: number): number {
  return field === 0 ? counts & 0xffff : field === 1 ? (counts >>> 16) & 0xff : counts >>> 24;
}

/** An Int32Array that grows by half again when full. */
class Ints {
  data: Int32Array;
  length = 0;
  constructor(capacity = 16) {
    this.data = new Int32Array(capacity);
  }
  /** Makes room for `more` values; returns where they start. */
  reserve(more: number): number {
    if (this.length + more > this.data.length) {
      const grown = new Int32Array(Math.max(Math.ceil(this.data.length * 1.5), this.length + more));
      grown.set(this.data.subarray(0, this.length));
      this.data = grown;
    }
    const at = this.length;
    this.length += more;
    return at;
  }
  push(value: number): void {
    // Not `this.data[this.reserve(1)] = value`: that reads `data` before a growth replaces it, so the value went to the old array.
    const at = this.reserve(1);
    this.data[at] = value;
  }
  /** Gives back the room beyond its values. */
  trim(): void {
    if (this.data.length > this.length) this.data = this.data.slice(0, Math.max(this.length, 1));
  }
}

export class Postings<Value> {
  readonly #termIds = new Map<string, number>();
  /** The pool of blocks; offset 0 is never a block, so 0 means none. */
  #pool = new Ints(1 << 12);
  /** Per term: its first and last block, and how many live fragments hold it. */
  #first = new Ints();
  #last = new Ints();
  #live = new Ints();
  /** Per fragment key: its value (undefined once removed), field lengths, and its distinct terms in `#terms` from `#termStart[key]` on. */
  readonly #values: (Value | undefined)[] = [];
  #lengths = new Float32Array(64 * FIELD_COUNT);
  #terms = new Ints(1 << 12);
  #termStart = new Ints();
  #termCount = new Ints();
  /** The summed length of each field over live fragments. */
  readonly #totalLength = new Float64Array(FIELD_COUNT);
  #liveFragments = 0;
  /** Changes with every addition, removal and compaction (a compaction in steps gives up when it moved). */
  #version = 0;
  /** Entries of fragments taken out, still in the pool until the next compaction. */
  #deadEntries = 0;
  #liveEntries = 0;
  // Scratch for counting a fragment's terms, reused.
  #counts = new Uint16Array(64 * FIELD_COUNT);
  readonly #slotOf = new Map<number, number>();

  constructor() {
    this.#pool.length = 1;
  }

  /** Number of live fragments. */
  get size(): number {
    return this.#liveFragments;
  }

  /** Keys run from 0 to `keyLimit - 1`. */
  get keyLimit(): number {
    return this.#values.length;
  }

  termId(term: string): number | undefined {
    return this.#termIds.get(term);
  }

  /** How many distinct terms it has met (it never forgets one). */
  get termCount(): number {
    return this.#first.length;
  }

  /** Calls `each` with every term and its id (a term no live fragment holds any more included: see `documentFrequency`). */
  forEachTerm(each: (term: string, id: number) => void): void {
    for (const [term, id] of this.#termIds) each(term, id);
  }

  /** How many live fragments hold term `id`. */
  documentFrequency(id: number): number {
    return this.#live.data[id] ?? 0;
  }

  /** Calls `each` with every live fragment holding term `id` and the term's packed counts there (`countIn`). */
  forEachPosting(id: number, each: (key: number, counts: number) => void): void {
    const pool = this.#pool.data;
    for (let block = this.#first.data[id]!; block !== 0; block = pool[block]!) {
      const used = pool[block + 1]!;
      for (let i = block + HEADER, end = block + HEADER + 2 * used; i < end; i += 2) {
        const key = pool[i]!;
        if (this.#values[key] !== undefined) each(key, pool[i + 1]! >>> 0);
      }
    }
  }

  value(key: number): Value | undefined {
    return this.#values[key];
  }

  /** Field `field`'s length in fragment `key`. */
  length(key: number, field: number): number {
    return this.#lengths[key * FIELD_COUNT + field]!;
  }

  /** The mean length of field `field` over live fragments (1 when none). */
  averageLength(field: number): number {
    return this.#liveFragments ? Math.max(this.#totalLength[field]! / this.#liveFragments, 1) : 1;
  }

  /**
   * Writes its arrays again at the size they hold, when they have much more room than that: while
   * an index is built, its arrays grow by half again and each term's last block by twice, so up to
   * twice the memory its entries need is taken. For a datastore that has settled; the next
   * additions take room again as they come. In steps (yielding between them, see
   * `#compactSteps`): returns whether it wrote them again, false when nothing needed it or the
   * postings changed meanwhile.
   */
  *tidySteps(): Generator<void, boolean> {
    const needed = HEADER * this.#first.length + 2 * this.#liveEntries + 1;
    if (this.#deadEntries === 0 && this.#pool.data.length <= needed * SLACK && this.#terms.data.length <= this.#liveEntries * SLACK) return false;
    if (!(yield* this.#compactSteps())) return false;
    this.#live.trim();
    this.#lengths = this.#lengths.slice(0, this.#values.length * FIELD_COUNT);
    this.#counts = new Uint16Array(64 * FIELD_COUNT);
    return true;
  }

  /** The bytes its arrays hold (what the index costs, beside the term dictionary). */
  get bytes(): number {
    const ints = [this.#pool, this.#first, this.#last, this.#live, this.#terms, this.#termStart, this.#termCount];
    return ints.reduce((sum, each) => sum + each.data.byteLength, 0) + this.#lengths.byteLength + this.#counts.byteLength;
  }

  /**
   * Adds fragment `at` of `analysed` as `value`, under a new key (returned). `termIds` maps the
   * analysis's term ids to this index's (-1: not yet known), filled as terms are met.
   */
  add(value: Value, analysed: AnalysedFragments, at: number, termIds: Int32Array): number {
    const key = this.#values.length;
    if ((key + 1) * FIELD_COUNT > this.#lengths.length) {
      const lengths = new Float32Array(Math.max(this.#lengths.length * 2, 64 * FIELD_COUNT));
      lengths.set(this.#lengths);
      this.#lengths = lengths;
    }
    const slotOf = this.#slotOf;
    slotOf.clear();
    const words = analysed.termsOfWords;
    for (let field = 0; field < FIELD_COUNT; field++) {
      let length = 0;
      analysed.forEachWord(at, field, (word) => {
        length++;
        const [from, to] = analysed.wordTerms(word);
        for (let i = from; i < to; i++) {
          const id = this.#indexTermId(analysed, words[i]!, termIds);
          let slot = slotOf.get(id);
          if (slot === undefined) {
            slot = slotOf.size;
            slotOf.set(id, slot);
            if ((slot + 1) * FIELD_COUNT > this.#counts.length) {
              const grown = new Uint16Array(this.#counts.length * 2);
              grown.set(this.#counts);
              this.#counts = grown;
            }
            this.#counts.fill(0, slot * FIELD_COUNT, (slot + 1) * FIELD_COUNT);
          }
          const count = slot * FIELD_COUNT + field;
          if (this.#counts[count]! < 0xffff) this.#counts[count] = this.#counts[count]! + 1;
        }
      });
      this.#lengths[key * FIELD_COUNT + field] = length;
      this.#totalLength[field]! += length;
    }
    this.#termStart.push(this.#terms.length);
    this.#termCount.push(slotOf.size);
    const counts = this.#counts;
    for (const [id, slot] of slotOf) {
      this.#terms.push(id);
      this.#append(id, key, pack(counts[slot * FIELD_COUNT]!, counts[slot * FIELD_COUNT + 1]!, counts[slot * FIELD_COUNT + 2]!));
      this.#live.data[id] = this.#live.data[id]! + 1;
    }
    this.#values.push(value);
    this.#version++;
    this.#liveFragments++;
    this.#liveEntries += slotOf.size;
    return key;
  }

  /** Takes fragment `key` out: its entries stay in the pool, skipped, until enough have gone to compact it. */
  remove(key: number): void {
    if (this.#values[key] === undefined) return;
    const start = this.#termStart.data[key]!;
    const count = this.#termCount.data[key]!;
    for (let i = start; i < start + count; i++) {
      const id = this.#terms.data[i]!;
      this.#live.data[id] = this.#live.data[id]! - 1;
    }
    for (let field = 0; field < FIELD_COUNT; field++) this.#totalLength[field]! -= this.#lengths[key * FIELD_COUNT + field]!;
    this.#values[key] = undefined;
    this.#version++;
    this.#liveFragments--;
    this.#liveEntries -= count;
    this.#deadEntries += count;
    if (this.#deadEntries > Math.max(this.#liveEntries, 4096)) this.#compact();
  }

  /** Appends an entry to term `id`'s last block, chaining a block twice as large when it is full. */
  #append(id: number, key: number, counts: number): void {
    let block = this.#last.data[id]!;
    if (block === 0 || this.#pool.data[block + 1] === this.#pool.data[block + 2]) {
      const capacity = block === 0 ? FIRST_BLOCK : Math.min(this.#pool.data[block + 2]! * 2, LARGEST_BLOCK);
      const fresh = this.#pool.reserve(HEADER + 2 * capacity);
      const pool = this.#pool.data;
      pool[fresh] = 0;
      pool[fresh + 1] = 0;
      pool[fresh + 2] = capacity;
      if (block === 0) this.#first.data[id] = fresh;
      else pool[block] = fresh;
      this.#last.data[id] = fresh;
      block = fresh;
    }
    const pool = this.#pool.data;
    const used = pool[block + 1]!;
    pool[block + HEADER + 2 * used] = key;
    pool[block + HEADER + 2 * used + 1] = counts | 0;
    pool[block + 1] = used + 1;
  }

  /** Writes the pool and the fragments' term lists again with live entries only, each term's in one block, at once. */
  #compact(): void {
    const steps = this.#compactSteps();
    while (!steps.next().done);
  }

  /**
   * `#compact` in steps of about `STEP_ENTRIES` entries: the new arrays are built aside while
   * queries read the old ones, and swapped in at the end. Gives up (returns false) if the
   * postings changed between two steps.
   */
  *#compactSteps(): Generator<void, boolean> {
    const version = this.#version;
    const old = this.#pool.data;
    const termTotal = this.#first.length;
    const pool = new Ints(Math.max(16, HEADER * termTotal + 2 * this.#liveEntries + 1));
    pool.length = 1;
    const first = new Int32Array(Math.max(termTotal, 1));
    let copied = 0;
    for (let id = 0; id < termTotal; id++) {
      if (copied >= STEP_ENTRIES) {
        copied = 0;
        yield;
        if (this.#version !== version) return false;
      }
      const live = this.#live.data[id]!;
      if (live === 0) continue;
      const block = pool.reserve(HEADER + 2 * live);
      pool.data[block] = 0;
      pool.data[block + 2] = live;
      let used = 0;
      for (let from = this.#first.data[id]!; from !== 0; from = old[from]!) {
        for (let i = from + HEADER, end = from + HEADER + 2 * old[from + 1]!; i < end; i += 2) {
          if (this.#values[old[i]!] === undefined) continue;
          pool.data[block + HEADER + 2 * used] = old[i]!;
          pool.data[block + HEADER + 2 * used + 1] = old[i + 1]!;
          used++;
        }
      }
      copied += used;
      pool.data[block + 1] = used;
      first[id] = block;
    }
    const keyTotal = this.#values.length;
    const terms = new Ints(Math.max(16, this.#liveEntries));
    const termStart = new Ints(Math.max(keyTotal, 1));
    const termCount = new Ints(Math.max(keyTotal, 1));
    for (let key = 0; key < keyTotal; key++) {
      if (copied >= STEP_ENTRIES) {
        copied = 0;
        yield;
        if (this.#version !== version) return false;
      }
      const start = this.#termStart.data[key]!;
      const count = this.#values[key] === undefined ? 0 : this.#termCount.data[key]!;
      termStart.push(terms.length);
      termCount.push(count);
      for (let i = start; i < start + count; i++) terms.push(this.#terms.data[i]!);
      copied += count;
    }
    this.#pool = pool;
    this.#first.data = first;
    this.#last.data = first.slice();
    this.#terms = terms;
    this.#termStart = termStart;
    this.#termCount = termCount;
    this.#deadEntries = 0;
    this.#version++;
    return true;
  }

  #indexTermId(analysed: AnalysedFragments, analysisId: number, termIds: Int32Array): number {
    let id = termIds[analysisId]!;
    if (id >= 0) return id;
    const term = analysed.term(analysisId);
    id = this.#termIds.get(term) ?? -1;
    if (id < 0) {
      id = this.#first.length;
      this.#termIds.set(term, id);
      this.#first.push(0);
      this.#last.push(0);
      this.#live.push(0);
    }
    termIds[analysisId] = id;
    return id;
  }
}
