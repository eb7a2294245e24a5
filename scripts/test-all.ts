// `npm test`: runs every part of the suite, even after one fails, prints each
// part's result and a closing summary, and exits non-zero if any part failed.
// The typecheck runs beside the node tests (it mostly waits on one core while they wait on servers and child
// processes); its output is held and printed when it ends, so the node tests' lines stay whole. The browser tests
// come after: four browsers side by side already fill the machine (all three parts side by side, measured in fresh-clone
// CI runs under four busy loops, took as long and ran tests past their time limits: 844 and 986 s against 797 s).
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';

interface Part {
  name: string;
  script: string;
  /** Its output is held and printed once it ends (it runs beside a part whose output is shown as it comes). */
  held?: boolean;
  /** Whether to skip the script's `pre` script, asked when the part starts. */
  skipPre?: () => boolean;
}

/**
 * Whether dist/'s script-tag build is newer than everything Vite builds it from: the node tests have just built it
 * (package-install's npm pack runs the whole build), so the browser tests need not build it again (pretest:browser).
 */
function scriptTagBuildIsFresh(): boolean {
  const modified = (path: string) => statSync(path).mtimeMs;
  const newest = (folder: string) =>
    Math.max(0, ...readdirSync(folder, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => modified(`${entry.parentPath}/${entry.name}`)));
  try {
    return modified('dist/kagent-chat.js') > Math.max(newest('src'), newest('scripts'), modified('vite.config.ts'), modified('package.json'), modified('package-lock.json'));
  } catch {
    return false;
  }
}
/** Stages one after another; the parts of a stage side by side. */
const stages: Part[][] = [
  [
    { name: 'node tests', script: 'test:node' },
    { name: 'typecheck', script: 'typecheck', held: true },
  ],
  [{ name: 'browser tests', script: 'test:browser', skipPre: scriptTagBuildIsFresh }],
];

// A log that keeps only its end (CI shows the end of the output) would hide which test failed: the failing
// tests' lines are kept as they pass by and printed again in the closing summary.
const FAILED_TEST = /❌|✖|^\s*not ok\b/;
const ERROR_LINE = /^\s*(?:AssertionError|Error|TypeError)\b/;
const TEST_FILE = /\.test\.ts:?$/;
const KEPT_LINES = 24;
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

/** How a part's npm process ended: its exit code, or the signal that ended it (npm itself killed from outside). */
interface Ending {
  code: number;
  signal?: NodeJS.Signals;
}

function runScript(script: string, skipPre: boolean, failures: string[], out: { write(chunk: Buffer): unknown }, err: { write(chunk: Buffer): unknown }): Promise<Ending> {
  return new Promise((done) => {
    // Each browser test file's time per browser at the end (TEST_TIMINGS=1 unless set), as the node tests print theirs.
    // npm run --ignore-scripts runs the script itself, not its pre and post scripts.
    const child = spawn('npm', ['run', '-s', script, ...(skipPre ? ['--ignore-scripts'] : [])], { stdio: ['inherit', 'pipe', 'pipe'], env: { ...process.env, TEST_TIMINGS: process.env.TEST_TIMINGS ?? '1' } });
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
    child.on('error', () => done({ code: 1 }));
    child.on('close', (code, signal) => done(signal ? { code: 1, signal } : { code: code ?? 0 }));
  });
}

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;
const results: { name: string; passed: boolean; took: string; failures: string[] }[] = [];
const began = performance.now();

async function runPart(part: Part): Promise<void> {
  const started = performance.now();
  const skipPre = part.skipPre?.() ?? false;
  const header = `\n=== ${part.name} (npm run ${part.script}${skipPre ? ', on the build the node tests just made' : ''})\n`;
  const held: Buffer[] = [];
  const hold = { write: (chunk: Buffer) => held.push(chunk) };
  if (!part.held) process.stdout.write(header);
  const failures: string[] = [];
  const { code, signal } = await runScript(part.script, skipPre, failures, part.held ? hold : process.stdout, part.held ? hold : process.stderr);
  results.push({ name: part.name, passed: code === 0, took: seconds(started), failures });
  if (part.held) process.stdout.write(`${header}${Buffer.concat(held).toString('utf8')}`);
  process.stdout.write(`=== ${part.name}: ${code === 0 ? 'passed' : `FAILED (${signal ? `npm's process ended by ${signal}` : `exit ${code}`})`} in ${seconds(started)}\n`);
}

for (const stage of stages) await Promise.all(stage.map(runPart));

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
