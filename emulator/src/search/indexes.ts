import type { FragmentRow } from '../store/records.js';
import type { FragmentsWatcher } from '../store/store.js';
import { FragmentIndex, type AnalysedSlice } from './fragment-index.js';

/** How long a datastore's index waits after its last change before it is tidied (`FragmentIndex.tidy`): an upload arrives in many changes. */
export const TIDY_AFTER_MS = 500;

/**
 * The search index of each datastore, kept up to date by the store (as its fragments watcher):
 * search depends on the store, never the other way round. Once a datastore's changes stop,
 * its index gives back the room it grew into while they came.
 */
export class DatastoreIndexes implements FragmentsWatcher<AnalysedSlice> {
  readonly #indexes = new Map<string, FragmentIndex>();
  /** Awaited between two steps of a tidy: the server's turn to answer requests. */
  readonly #pause: () => Promise<void>;
  readonly #tidyTimers = new Map<string, ReturnType<typeof setTimeout>>();
  #tidyWaiters: (() => void)[] = [];

  /** `pause`: awaited between two steps of a tidy (the emulator gives the server a turn there). */
  constructor(pause: () => Promise<void> = () => new Promise((resolve) => setImmediate(resolve))) {
    this.#pause = pause;
  }

  /** The search index of a datastore (empty when it has no fragments). */
  of(datastoreId: string): FragmentIndex {
    let index = this.#indexes.get(datastoreId);
    if (!index) {
      index = new FragmentIndex();
      this.#indexes.set(datastoreId, index);
    }
    return index;
  }

  set(datastoreId: string, datasourceId: string, fragments: readonly FragmentRow[]): void {
    this.of(datastoreId).replace(datasourceId, fragments);
    this.#changed(datastoreId);
  }

  add(datastoreId: string, datasourceId: string, fragments: readonly FragmentRow[], analysed: AnalysedSlice | undefined): void {
    this.of(datastoreId).add(datasourceId, fragments, analysed);
    this.#changed(datastoreId);
  }

  remove(datasourceId: string): void {
    for (const [datastoreId, index] of this.#indexes) if (index.remove(datasourceId)) this.#changed(datastoreId);
  }

  removeDatastore(datastoreId: string): void {
    this.#indexes.delete(datastoreId);
    clearTimeout(this.#tidyTimers.get(datastoreId));
    this.#tidyTimers.delete(datastoreId);
    this.#settle();
  }

  /** Resolves once no index waits to be tidied. */
  tidied(): Promise<void> {
    if (this.#tidyTimers.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#tidyWaiters.push(resolve));
  }

  /** Stops the tidying still to come (the emulator is closing). */
  close(): void {
    for (const timer of this.#tidyTimers.values()) clearTimeout(timer);
    this.#tidyTimers.clear();
    this.#settle();
  }

  /** Tidies a datastore's index `TIDY_AFTER_MS` after its last change. */
  #changed(datastoreId: string): void {
    clearTimeout(this.#tidyTimers.get(datastoreId));
    const timer = setTimeout(async () => {
      const index = this.#indexes.get(datastoreId);
      // A change meanwhile stops the steps (and sets a new timer).
      if (index) for (const _ of index.tidySteps()) await this.#pause();
      if (this.#tidyTimers.get(datastoreId) === timer) this.#tidyTimers.delete(datastoreId);
      this.#settle();
    }, TIDY_AFTER_MS);
    this.#tidyTimers.set(datastoreId, timer);
  }

  #settle(): void {
    if (this.#tidyTimers.size === 0) for (const resolve of this.#tidyWaiters.splice(0)) resolve();
  }
}
