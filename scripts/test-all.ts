// `npm test`: runs every part of the suite, even after one fails, prints each
// part's result and a closing summary, and exits non-zero if any part failed.
// The parts run side by side: each mostly waits (on servers, child processes, browsers and one core of tsc), and
// on a busy machine the run's share of the CPU grows with what it has runnable. The node tests' output is shown as it
// comes; the typecheck's and the browser tests' is held and printed when each ends, so every part's lines stay whole.
// The browser tests load a script-tag build of their own (test-build/, made first): node tests rebuild dist/ beside
// them (npm pack, npm start), and a page must never load a half-written file.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';

/** The folder the browser tests' build goes to; web-test-runner.config.js serves it at /dist/. */
const TEST_BUILD = 'test-build';

interface Part {
  name: string;
  /** Commands run one after another, each as [command, ...args]; the part fails at the first that fails. */
  steps: string[][];
  env?: Record<string, string>;
  /** Its output is held and printed once it ends (it runs beside a part whose output is shown as it comes). */
  held?: boolean;
}
const parts: Part[] = [
  { name: 'node tests', steps: [['npm', 'run', '-s', 'test:node']] },
  { name: 'typecheck', steps: [['npm', 'run', '-s', 'typecheck']], held: true },
  {
    name: 'browser tests',
    steps: [
      // An absolute --outDir: a relative one is read from Vite's root, demo/.
      ['npx', 'vite', 'build', '--logLevel', 'warn', '--outDir', resolve(TEST_BUILD)],
      ['npm', 'run', '-s', 'test:browser'],
    ],
    // Each file's time per browser at the end, as the node tests print theirs: what to look at when CI gets slow.
    env: { TEST_BUILD, TEST_TIMINGS: process.env.TEST_TIMINGS ?? '1' },
    held: true,
  },
];

// A log that keeps only its end (CI shows the end of the output) would hide which test failed: the failing
// tests' lines are kept as they pass by and printed again in the closing summary.
const FAILED_TEST = /❌|✖|^\s*not ok\b/;
const ERROR_LINE = /^\s*(?:AssertionError|Error|TypeError)\b/;
const TEST_FILE = /\.test\.ts:?$/;
const KEPT_LINES = 24;
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

function runCommand(command: string[], env: Record<string, string>, failures: string[], out: { write(chunk: Buffer): unknown }, err: { write(chunk: Buffer): unknown }): Promise<number> {
  return new Promise((done) => {
    const child = spawn(command[0]!, command.slice(1), { stdio: ['inherit', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let partial = '';
    let file = '';
    let sinceFailure = Infinity;
    const add = (line: string) => {
      if (failures.length < KEPT_LINES && !failures.includes(line)) failures.push(line);
    };
    const keep = (chunk: Buffer, to: { write(chunk: Buffer): unknown }) => {
      to.write(chunk);
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const plain = line.replace(ANSI, '').trimEnd();
        sinceFailure += 1;
        if (TEST_FILE.test(plain.trim())) file = plain.trim();
        if (FAILED_TEST.test(plain)) {
          if (file) add(file);
          add(plain);
          sinceFailure = 0;
        } else if (ERROR_LINE.test(plain) && sinceFailure <= 12) add(plain);
      }
    };
    child.stdout.on('data', (chunk: Buffer) => keep(chunk, out));
    child.stderr.on('data', (chunk: Buffer) => keep(chunk, err));
    child.on('error', () => done(1));
    child.on('close', (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
}

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;
const results: { name: string; passed: boolean; took: string; failures: string[] }[] = [];
const began = performance.now();

async function runPart(part: Part): Promise<void> {
  const started = performance.now();
  const header = `\n=== ${part.name} (${part.steps.map((step) => step.join(' ')).join(', then ')})\n`;
  const held: Buffer[] = [];
  const hold = { write: (chunk: Buffer) => held.push(chunk) };
  if (!part.held) process.stdout.write(header);
  const failures: string[] = [];
  let code = 0;
  for (const step of part.steps) {
    code = await runCommand(step, part.env ?? {}, failures, part.held ? hold : process.stdout, part.held ? hold : process.stderr);
    if (code !== 0) break;
  }
  results.push({ name: part.name, passed: code === 0, took: seconds(started), failures });
  if (part.held) process.stdout.write(`${header}${Buffer.concat(held).toString('utf8')}`);
  process.stdout.write(`=== ${part.name}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds(started)}\n`);
}

// A build left by an earlier run would keep chunks this one no longer makes.
rmSync(TEST_BUILD, { recursive: true, force: true });
await Promise.all(parts.map(runPart));

const failed = results.filter((result) => !result.passed);
process.stdout.write(`\n${results.map((result) => `${result.passed ? 'passed' : 'FAILED'}  ${result.name} (${result.took})`).join('\n')}\n`);
for (const result of failed) {
  if (result.failures.length > 0) process.stdout.write(`--- what failed in ${result.name} (first ${KEPT_LINES} lines):\n${result.failures.join('\n')}\n`);
}
process.stdout.write(
  failed.length === 0
    ? `npm test: all ${results.length} parts passed in ${seconds(began)}\n`
    : `npm test: ${failed.length} of ${results.length} parts failed (${failed.map((result) => result.name).join(', ')}) in ${seconds(began)}\n`,
);
process.exitCode = failed.length === 0 ? 0 : 1;
