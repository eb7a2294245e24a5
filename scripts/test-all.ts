// `npm test`: runs every part of the suite, even after one fails, prints each
// part's result and a closing summary, and exits non-zero if any part failed.
// One after another, not side by side: each part already uses the machine's cores.
import { spawn } from 'node:child_process';

const parts = [
  { name: 'typecheck', script: 'typecheck' },
  { name: 'node tests', script: 'test:node' },
  { name: 'browser tests', script: 'test:browser' },
];

function runScript(script: string): Promise<number> {
  return new Promise((done) => {
    const child = spawn('npm', ['run', '-s', script], { stdio: 'inherit' });
    child.on('error', () => done(1));
    child.on('exit', (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
}

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;
const results: { name: string; passed: boolean; took: string }[] = [];
const began = performance.now();
for (const part of parts) {
  const started = performance.now();
  process.stdout.write(`\n=== ${part.name} (npm run ${part.script})\n`);
  const code = await runScript(part.script);
  results.push({ name: part.name, passed: code === 0, took: seconds(started) });
  process.stdout.write(`=== ${part.name}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds(started)}\n`);
}

const failed = results.filter((result) => !result.passed);
process.stdout.write(`\n${results.map((result) => `${result.passed ? 'passed' : 'FAILED'}  ${result.name} (${result.took})`).join('\n')}\n`);
process.stdout.write(
  failed.length === 0
    ? `npm test: all ${results.length} parts passed in ${seconds(began)}\n`
    : `npm test: ${failed.length} of ${results.length} parts failed (${failed.map((result) => result.name).join(', ')}) in ${seconds(began)}\n`,
);
process.exitCode = failed.length === 0 ? 0 : 1;
