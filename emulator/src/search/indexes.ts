import type { FragmentRow } from '../store/records.js';
import type { FragmentsWatcher } from '../store/store.js';
import { FragmentIndex, type AnalysedSlice } from './fragment-index.js';

/**
 * The search index of each datastore, kept up to date by the store (as its fragments watcher):
 * search depends on the store, never the other way round.
 */
export class DatastoreIndexes implements FragmentsWatcher<AnalysedSlice> {
  readonly #indexes = new Map<string, FragmentIndex>();

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
  }

  add(datastoreId: string, datasourceId: string, fragments: readonly FragmentRow[], analysed: AnalysedSlice | undefined): void {
    this.of(datastoreId).add(datasourceId, fragments, analysed);
  }

  remove(datasourceId: string): void {
    for (const index of this.#indexes.values()) index.remove(datasourceId);
  }

  removeDatastore(datastoreId: string): void {
    this.#indexes.delete(datastoreId);
  }
}
