// The parts of a search hit's ranking that MiniSearch's BM25+ does not know
// (fragment-index.ts applies them to its candidates): coordination by concept, not by
// spelling, and what the rest of the passage's document says of the question.

/** A concept of the question (a word or a synonym phrase) as the ranking weighs it. */
export interface WeightedConcept {
  /** Its own terms first, then its synonyms'. */
  terms: readonly string[];
  /** How many of `terms` are its own. */
  own: number;
  /** Its IDF weight in the datastore (0 when no fragment holds it). */
  weight: number;
}

/**
 * BM25+ as MiniSearch computes it, with its coordination factor (the sum of
 * the matched terms' scores times how many query terms matched) taken per
 * concept: a question's word matched in three spellings ("host", "deploy",
 * "platform") or inside a phrase pair counts once, as it does for its reader,
 * and a phrase of the question ("file types") counts whole only when all its
 * words or one of its synonyms are there, else for the share of its words
 * that are. Otherwise a passage that happens to use every synonym of one word
 * outranks one that holds the question's other words.
 */
export function coordinatedScore(score: number, matchedTerms: readonly string[], concepts: readonly WeightedConcept[]): number {
  if (matchedTerms.length === 0) return 0;
  const matched = new Set(matchedTerms);
  let coordination = 0;
  for (const concept of concepts) {
    if (concept.weight > 0) coordination += conceptMatch(concept, matched);
  }
  return (score / matchedTerms.length) * coordination;
}

/** How much of a concept a passage holding `matched` holds: 1 for all its own words or a synonym, else the share of its own words. */
export function conceptMatch(concept: WeightedConcept, matched: ReadonlySet<string>): number {
  const { terms, own } = concept;
  let found = 0;
  for (let i = 0; i < own; i++) if (matched.has(terms[i]!)) found++;
  // A synonym that is also one of its own words (a phrase holding it) does not stand for the whole.
  for (let i = own; i < terms.length; i++) {
    if (matched.has(terms[i]!) && terms.indexOf(terms[i]!) >= own) return 1;
  }
  return own ? found / own : 0;
}

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
