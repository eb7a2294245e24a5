// A node:test reporter that prints, when the run ends, each test file's time (the sum of its top-level tests'
// durations, without the process start) and its share, slowest first: what to look at when the node tests get
// slow. Plain JavaScript: node loads reporters before tsx. Beside the usual one:
// `--test-reporter=spec --test-reporter-destination=stdout --test-reporter=./scripts/node-test-timings.js --test-reporter-destination=stdout`
import { relative } from 'node:path';

export default async function* nodeTestTimings(source) {
  const byFile = new Map();
  for await (const { type, data } of source) {
    if ((type !== 'test:pass' && type !== 'test:fail') || data.nesting !== 0 || !data.file) continue;
    const file = relative(process.cwd(), data.file);
    byFile.set(file, (byFile.get(file) ?? 0) + (data.details?.duration_ms ?? 0) / 1000);
  }
  const total = [...byFile.values()].reduce((sum, seconds) => sum + seconds, 0);
  const lines = [...byFile]
    .sort((a, b) => b[1] - a[1])
    .map(([file, seconds]) => `${seconds.toFixed(1).padStart(7)} s ${((100 * seconds) / total).toFixed(1).padStart(5)} %  ${file}`);
  yield `\nTime per test file, slowest first (sum ${total.toFixed(0)} s):\n${lines.join('\n')}\n`;
}
