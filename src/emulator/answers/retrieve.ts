import type { Source } from '../../protocol/index.js';
import type { FragmentHit } from '../search.js';
import type { DatasourceRow } from '../store/records.js';
import type { Store } from '../store/store.js';
import { sourceOf } from '../present.js';

/** Fragments an agent reads before it answers. */
export const AGENT_TOP_K = 8;

/** A retrieved fragment and the datasource it belongs to. */
export interface Retrieved extends FragmentHit {
  datasource: DatasourceRow;
}

/** The best fragments of the agent's datastores for `query`, best first. */
export function retrieve(
  store: Store,
  datastoreIds: readonly string[],
  query: string,
  filter: ((datasourceId: string) => boolean) | undefined,
  topK = AGENT_TOP_K,
): Retrieved[] {
  const hits: Retrieved[] = [];
  for (const datastoreId of datastoreIds) {
    for (const hit of store.index(datastoreId).query(query, { topK, ...(filter ? { datasourceFilter: filter } : {}) })) {
      const datasource = store.datasources.get(hit.datasourceId);
      if (datasource) hits.push({ ...hit, datasource });
    }
  }
  return hits.sort((a, b) => b.score - a.score).slice(0, topK);
}

/**
 * The answer's sources as the service picks them (wire-format.md): fragments
 * scored above the threshold, best first, one per datasource. `hits[i]` is
 * the fragment behind `sources[i]`, so `[i+1]` in the answer cites it.
 */
export function pickSources(
  retrieved: readonly Retrieved[],
  threshold: number,
  fileUrl: (row: DatasourceRow) => string | undefined,
): { sources: Source[]; hits: Retrieved[] } {
  const seen = new Set<string>();
  const hits: Retrieved[] = [];
  for (const hit of retrieved) {
    if (hit.score <= threshold || seen.has(hit.datasource.id)) continue;
    seen.add(hit.datasource.id);
    hits.push(hit);
  }
  return { sources: hits.map((hit) => sourceOf(hit, hit.datasource, fileUrl)), hits };
}
