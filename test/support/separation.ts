// Whether the score shown beside a source tells right sources from wrong ones: the scores of
// the citations of a right document against those of the others (medians, and the chance that
// a right one scores above a wrong one: the area under the ROC curve), and how often 100% shows.

export interface Separation {
  right: number;
  wrong: number;
  rightMedian: number;
  wrongMedian: number;
  /** The chance that a right citation scores above a wrong one (ties count half): 0.5 says nothing, 1 separates all. */
  auc: number;
  /** Citations shown as 100% (0.995 or more), right or wrong. */
  hundred: number;
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length === 0 ? NaN : sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

export function separation(right: readonly number[], wrong: readonly number[]): Separation {
  let above = 0;
  for (const r of right) for (const w of wrong) above += r > w ? 1 : r === w ? 0.5 : 0;
  return {
    right: right.length,
    wrong: wrong.length,
    rightMedian: median(right),
    wrongMedian: median(wrong),
    auc: right.length && wrong.length ? above / (right.length * wrong.length) : NaN,
    hundred: [...right, ...wrong].filter((score) => score >= 0.995).length,
  };
}

export function describeSeparation(s: Separation): string {
  return `${s.right} citations of a right document, median ${s.rightMedian.toFixed(2)}; ${s.wrong} others, median ${s.wrongMedian.toFixed(2)}; AUC ${s.auc.toFixed(3)}; shown as 100%: ${s.hundred} of ${s.right + s.wrong}`;
}
