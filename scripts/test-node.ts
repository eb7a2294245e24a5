// `npm run test:node`: the node tests in two lanes side by side. Files that build into this repository's dist/,
// openapi.json and custom-elements.json (npm pack's prepack, npm start's vite build), or run or read what the build
// writes, run one at a time in their own lane, so no file reads a half-written build; the rest run two at a time
// (their tests mostly wait on servers and child processes). The second lane's output is held and printed when it
// ends, so each lane's lines stay whole. Per-file times (scripts/node-test-timings.js) close each lane.
// The heaviest file that builds nothing runs in the lane of files that build too, so that the lanes end together.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';

const BUILDS = ['demo-e2e', 'package-install', 'process-exits', 'widget-manifest'].map((name) => `test/node/${name}.test.ts`);
// In loaded CI the first lane took 273 s and the other 360 s, of which this file 67 s (a fifth of its per-file sum).
const BESIDE_BUILDS = ['emulator-ingest-files'].map((name) => `test/node/${name}.test.ts`);
const ONE_AT_A_TIME = [...BUILDS, ...BESIDE_BUILDS];
const named = process.argv.slice(2);
const all = named.length > 0 ? named : readdirSync('test/node').filter((file) => file.endsWith('.test.ts')).map((file) => `test/node/${file}`);
const lanes = [
  { files: all.filter((file) => !ONE_AT_A_TIME.includes(file)), concurrency: 2, held: false },
  { files: all.filter((file) => ONE_AT_A_TIME.includes(file)), concurrency: 1, held: true },
].filter((lane) => lane.files.length > 0);

const reporters = ['--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=./scripts/node-test-timings.js', '--test-reporter-destination=stdout'];

function run(lane: (typeof lanes)[number]): Promise<number> {
  return new Promise((done) => {
    // test-file-exit.js: a file's process ends once its tests and hooks have, even if a failed test left something running.
    const child = spawn(process.execPath, ['--import', 'tsx', '--import', './scripts/test-file-exit.js', '--test', `--test-concurrency=${lane.concurrency}`, ...reporters, ...lane.files], { stdio: ['inherit', 'pipe', 'pipe'] });
    const held: Buffer[] = [];
    const out = (to: NodeJS.WriteStream) => (chunk: Buffer) => (lane.held ? held.push(chunk) : to.write(chunk));
    child.stdout.on('data', out(process.stdout));
    child.stderr.on('data', out(process.stderr));
    child.on('error', () => done(1));
    child.on('close', (code, signal) => {
      if (lane.held) process.stdout.write(`\n--- node tests that build (and the heaviest that does not), one at a time (${lane.files.length} files):\n${Buffer.concat(held).toString('utf8')}`);
      done(code ?? (signal ? 1 : 0));
    });
  });
}

const codes = await Promise.all(lanes.map(run));
process.exitCode = codes.some((code) => code !== 0) ? 1 : 0;
