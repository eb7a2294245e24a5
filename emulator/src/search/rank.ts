// The part of a search hit's ranking that BM25 does not know (fragment-index.ts applies it to its
// best candidates): what the rest of the passage's document says of the question.

/**
 * Scores weighed by what the rest of their document says of the question: a
 * fragment's score times (1 + `weight` × support) / (1 + `weight`), where
 * support is the scores of the next `others` best fragments of the same
 * datasource among the candidates over `others` times its own, capped at 1. A
 * document that answers in several passages is about the question; an
 * overview that names it in one passage is not, however well that passage
 * matches. A fragment with that much support keeps its score, one alone loses
 * up to `weight` / (1 + `weight`) of it, so the score never rises above what
 * the fragment's own words earn. A document's own fragments keep their order.
 */
export function pooledScores(hits: readonly { datasourceId: string; raw: number }[], weight: number, others: number): number[] {
  const byDatasource = new Map<string, number[]>();
  for (const hit of hits) {
    const list = byDatasource.get(hit.datasourceId) ?? [];
    list.push(hit.raw);
    byDatasource.set(hit.datasourceId, list);
  }
  for (const list of byDatasource.values()) list.sort((a, b) => b - a);
  return hits.map((hit) => {
    if (hit.raw <= 0) return 0;
    // The document's best scores other than this fragment's own.
    const list = byDatasource.get(hit.datasourceId)!;
    let rest = 0;
    let taken = 0;
    let skipped = false;
    for (const raw of list) {
      if (taken === others) break;
      if (!skipped && raw === hit.raw) {
        skipped = true;
        continue;
      }
      rest += raw;
      taken++;
    }
    const support = Math.min(1, rest / (others * hit.raw));
    return (hit.raw * (1 + weight * support)) / (1 + weight);
  });
}

/**
 * The `count` keys of `keys` with the highest `scores[key]` that `accept` takes, best first (ties:
 * the lower key first), kept in a heap of `count`: a question matching most of a large
 * datastore makes no object per fragment it matches.
 */
export function bestKeys(keys: readonly number[], scores: Float64Array, count: number, accept: (key: number) => boolean): number[] {
  const heap: number[] = [];
  // The heap's root is its worst key: lower score, or the same score and a higher key.
  const worse = (a: number, b: number) => scores[a]! < scores[b]! || (scores[a] === scores[b] && a > b);
  const down = (from: number) => {
    let at = from;
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let worst = at;
      if (left < heap.length && worse(heap[left]!, heap[worst]!)) worst = left;
      if (right < heap.length && worse(heap[right]!, heap[worst]!)) worst = right;
      if (worst === at) return;
      [heap[at], heap[worst]] = [heap[worst]!, heap[at]!];
      at = worst;
    }
  };
  for (const key of keys) {
    if (heap.length === count && !worse(heap[0]!, key)) continue;
    if (!accept(key)) continue;
    if (heap.length < count) {
      heap.push(key);
      for (let at = heap.length - 1; at > 0; ) {
        const parent = (at - 1) >> 1;
        if (!worse(heap[at]!, heap[parent]!)) break;
        [heap[at], heap[parent]] = [heap[parent]!, heap[at]!];
        at = parent;
      }
    } else {
      heap[0] = key;
      down(0);
    }
  }
  return heap.sort((a, b) => scores[b]! - scores[a]! || a - b);
}
