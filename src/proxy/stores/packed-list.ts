/**
 * A list of strings kept as a few long ones: each append's values joined into one string, with where each ends.
 * A garbage collector walks objects, not bytes: insights' records kept one string each (a hundred thousand on a
 * busy day) made every collection of the proxy walk them all, which cost more than recording them; joined a
 * batch at a time they are a hundred times fewer objects.
 */
export class PackedList {
  #chunks: { text: string; ends: Uint32Array }[] = [];
  #length = 0;

  /** How many values the list holds. */
  get length(): number {
    return this.#length;
  }

  /** Adds `values` at the end, in order. */
  push(values: readonly string[]): void {
    if (values.length === 0) return;
    const ends = new Uint32Array(values.length);
    let end = 0;
    for (let i = 0; i < values.length; i++) ends[i] = end += values[i]!.length;
    this.#chunks.push({ text: values.join(''), ends });
    this.#length += values.length;
  }

  /** Every value, oldest first. */
  values(): string[] {
    const values: string[] = [];
    for (const { text, ends } of this.#chunks) {
      let start = 0;
      for (const end of ends) {
        values.push(text.slice(start, end));
        start = end;
      }
    }
    return values;
  }

  /** Takes every copy of these values out; gives how many went. */
  remove(going: ReadonlySet<string>): number {
    const kept = this.values().filter((value) => !going.has(value));
    const removed = this.#length - kept.length;
    this.#chunks = [];
    this.#length = 0;
    this.push(kept);
    return removed;
  }
}
