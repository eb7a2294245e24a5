// The slopes of the emulator's shown score (emulator/src/search/score.ts) fitted again: a
// logistic regression of "a right document" on the logarithms of a passage's share of the
// question, its score over the best and its lead, by Newton's method with a slight ridge.
import type { Standing } from '../../emulator/src/search/score.js';

export interface Example extends Standing {
  right: boolean;
}

/** The fitted intercept and slopes. */
export function fitSlopes(examples: readonly Example[]): { intercept: number; share: number; ofBest: number; lead: number } {
  const rows = examples.map((example) => [1, Math.log(example.share), Math.log(example.ofBest), Math.log(example.lead)]);
  const ys = examples.map((example) => (example.right ? 1 : 0));
  const size = 4;
  const w = new Array<number>(size).fill(0);
  for (let step = 0; step < 50; step++) {
    const gradient = new Array<number>(size).fill(0);
    const hessian = Array.from({ length: size }, (_, i) => Array.from({ length: size }, (_, j) => (i === j ? 1e-3 : 0)));
    rows.forEach((x, n) => {
      const p = 1 / (1 + Math.exp(-x.reduce((sum, value, i) => sum + value * w[i]!, 0)));
      for (let i = 0; i < size; i++) {
        gradient[i]! += (p - ys[n]!) * x[i]!;
        for (let j = 0; j < size; j++) hessian[i]![j]! += p * (1 - p) * x[i]! * x[j]!;
      }
    });
    for (let i = 0; i < size; i++) gradient[i]! += 1e-3 * w[i]!;
    const delta = solve(hessian, gradient);
    for (let i = 0; i < size; i++) w[i]! -= delta[i]!;
  }
  return { intercept: w[0]!, share: w[1]!, ofBest: w[2]!, lead: w[3]! };
}

/** Solves `a x = b` by Gaussian elimination with partial pivoting (a is small and well conditioned). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let row = col + 1; row < n; row++) if (Math.abs(m[row]![col]!) > Math.abs(m[pivot]![col]!)) pivot = row;
    [m[col], m[pivot]] = [m[pivot]!, m[col]!];
    for (let row = col + 1; row < n; row++) {
      const factor = m[row]![col]! / m[col]![col]!;
      for (let k = col; k <= n; k++) m[row]![k]! -= factor * m[col]![k]!;
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let row = n - 1; row >= 0; row--) {
    let sum = m[row]![n]!;
    for (let k = row + 1; k < n; k++) sum -= m[row]![k]! * x[k]!;
    x[row] = sum / m[row]![row]!;
  }
  return x;
}
