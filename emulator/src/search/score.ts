// The score shown beside a passage (a source's "82% relevant"): how likely it is to be a right
// source, from how much of the question it holds and how far its document stands above the other
// documents found. Its weights are measured on BEIR SciFact (bench/search-scifact.bench.ts fits
// them again and prints them beside these); its level keeps the service's citation threshold
// (0.7) where a passage holding a quarter of the question has always been cited.

/** Share of the question's weight a passage must hold to be cited at all (0.7 × share / 0.27 caps the score). */
export const CITED_SHARE = 0.27;
/** The lead (a passage over the mean of the next documents' best) at which a passage holding `CITED_SHARE` scores 0.7. */
export const LEAD_ANCHOR = 1.2;
/** How many of the next documents a passage is compared with. */
export const DOCUMENTS_COMPARED = 4;
/**
 * Log-odds slopes of a right source on the logarithms of its share, its score over the best
 * passage's and its lead, by logistic regression over the first eight documents found for each
 * of SciFact's 300 claims (0.81, 0.72, 4.84 in this round's fit).
 */
export const SLOPES = { share: 0.8, ofBest: 0.7, lead: 4.8 } as const;
const ODDS_AT_ANCHOR = 0.7 / 0.3;

/** What the score of a passage is made of. */
export interface Standing {
  /** 0..1: the question's weight the passage holds (see `FragmentIndex.query`). */
  share: number;
  /** 0..1: its ranking score over the best passage's. */
  ofBest: number;
  /** Its ranking score over the mean of the best passages of the next `DOCUMENTS_COMPARED` other documents found (`LEAD_ANCHOR` when there are none). */
  lead: number;
  /** 0..1: the question's weight the datastore holds at all, a word no fragment holds weighing as a term of one fragment (the most a term can). */
  inDatastore: number;
  /**
   * Whether the passage holds the question's subject: its most telling word (the rarest of those
   * the datastore holds, everyday words aside), or two of its telling words. A passage holding
   * one word of the question's several, and not the most telling, is about something else.
   */
  holdsSubject: boolean;
}

/**
 * The score shown, 0..1: the odds of 7 to 3 (0.7) for a passage holding 27% of the question
 * whose document leads the next ones by 1.2, times (share / 0.27)^0.8 × ofBest^0.7 ×
 * (lead / 1.2)^4.8, as a probability; never above 0.7 × share × ofBest / 0.27, so a passage
 * holding less than 27% of the question is not cited, however far its document leads.
 */
export function shownScore({ share, ofBest, lead }: Pick<Standing, 'share' | 'ofBest' | 'lead'>): number {
  if (share <= 0 || ofBest <= 0) return 0;
  const odds = ODDS_AT_ANCHOR * (share / CITED_SHARE) ** SLOPES.share * ofBest ** SLOPES.ofBest * (lead / LEAD_ANCHOR) ** SLOPES.lead;
  const likely = odds / (1 + odds);
  const covered = (0.7 * share * ofBest) / CITED_SHARE;
  return Math.round(Math.min(1, likely, covered) * 1e6) / 1e6;
}

/**
 * The lead of each hit: its score over the mean of the best scores of the next
 * `DOCUMENTS_COMPARED` documents other than its own (`LEAD_ANCHOR` when it is alone).
 */
export function leads(hits: readonly { datasourceId: string; score: number }[]): number[] {
  const bestOf = new Map<string, number>();
  for (const hit of hits) bestOf.set(hit.datasourceId, Math.max(bestOf.get(hit.datasourceId) ?? 0, hit.score));
  const documents = [...bestOf].sort((a, b) => b[1] - a[1]);
  return hits.map((hit) => {
    let sum = 0;
    let count = 0;
    for (const [datasourceId, best] of documents) {
      if (count === DOCUMENTS_COMPARED) break;
      if (datasourceId === hit.datasourceId) continue;
      sum += best;
      count++;
    }
    return count && sum > 0 ? hit.score / (sum / count) : LEAD_ANCHOR;
  });
}

/**
 * Log-odds slopes of "the datastore holds what answers the question" on the logarithms of the
 * best passage's share and lead and on the question's share the datastore holds at all, by
 * logistic regression over SciFact's claims with the abstracts that answer half of them taken out
 * (test/support/answer-line.ts), checked on StackFAQ's forum questions split the same way: the
 * area under the ROC curve 0.774 on SciFact and 0.794 on StackFAQ, where the score shown has
 * 0.746 and 0.762 (the score ranks passages of one question; this compares questions).
 */
export const ANSWERABLE_SLOPES = { share: 0.95, lead: 3.8, inDatastore: 1.9, intercept: -1.26 } as const;

/**
 * Below this share of a question's weight held anywhere in the datastore, the question is about
 * something the documents do not speak of (its words they never use weigh as the rarest word
 * can): on StackFAQ split as above, 1.1% of the questions that can be answered fall below it and
 * 6.3% of those that cannot; on SciFact none of either.
 */
export const UNSPOKEN_OF = 0.4;

/**
 * 0..1: how likely it is that the datastore holds what answers a question whose best passage stands so (`ANSWERABLE_SLOPES`);
 * 0 below `UNSPOKEN_OF`, and 0 for a passage that does not hold the question's subject (`Standing.holdsSubject`).
 */
export function answerable({ share, lead, inDatastore, holdsSubject = true }: Pick<Standing, 'share' | 'lead' | 'inDatastore'> & Partial<Pick<Standing, 'holdsSubject'>>): number {
  if (share <= 0 || lead <= 0 || inDatastore < UNSPOKEN_OF || !holdsSubject) return 0;
  const logOdds = ANSWERABLE_SLOPES.intercept + ANSWERABLE_SLOPES.share * Math.log(share) + ANSWERABLE_SLOPES.lead * Math.log(lead) + ANSWERABLE_SLOPES.inDatastore * inDatastore;
  return Math.round((1 / (1 + Math.exp(-logOdds))) * 1e6) / 1e6;
}
