// `npm run size -- [--no-build] [--modules]`: where the script-tag build's
// gzipped bytes go. Builds dist/ (unless --no-build), then for the first part (dist/kagent-chat.js),
// the second (dist/kagent-chat-answers-<hash>.js) and both, prints each package's gzip-weighted
// share (read from the source maps; see bench/support/bundle-shares.ts), with --modules each source
// module's too, and any module bundled into both parts.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { moduleName, packageOf, readBuilt, shares, type BuiltFile } from '../bench/support/bundle-shares.js';

const root = new URL('../', import.meta.url);
const dist = new URL('dist/', root);
if (!process.argv.includes('--no-build')) {
  const result = spawnSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(1);
}
const secondName = readdirSync(dist).find((name) => /^kagent-chat-answers-[\w-]+\.js$/.test(name));
if (!secondName) throw new Error('No second part in dist/ (kagent-chat-answers-*.js): run without --no-build');
const parts = [readBuilt(dist, 'kagent-chat.js'), readBuilt(dist, secondName)];

const n = (count: number) => count.toLocaleString('en-US');
function table(title: string, groupOf: (source: string | null) => string) {
  const perPart = parts.map((part) => shares(part, groupOf));
  const groups = [...new Set(perPart.flatMap((part) => [...part.keys()]))];
  const total = (group: string) => perPart.reduce((sum, part) => sum + (part.get(group)?.gzip ?? 0), 0);
  groups.sort((a, b) => total(b) - total(a));
  console.log(`\n| ${title} | first part, gzip | second part, gzip | both, gzip | both, minified |\n|---|---:|---:|---:|---:|`);
  for (const group of groups) {
    const [a, b] = perPart.map((part) => part.get(group));
    console.log(`| ${group} | ${a ? n(a.gzip) : '-'} | ${b ? n(b.gzip) : '-'} | ${n(total(group))} | ${n((a?.raw ?? 0) + (b?.raw ?? 0))} |`);
  }
  const sums = perPart.map((part) => [...part.values()].reduce((sum, share) => sum + share.gzip, 0));
  console.log(`| (sum of the shares) | ${n(sums[0]!)} | ${n(sums[1]!)} | ${n(sums[0]! + sums[1]!)} | |`);
}

const size = (part: BuiltFile) => `${n(part.gzip.length)} bytes gzip -9 (${n(part.code.length)} minified)`;
console.log(`First part, dist/kagent-chat.js: ${size(parts[0]!)}`);
console.log(`Second part, dist/${secondName}: ${size(parts[1]!)}`);
console.log(`Both: ${n(parts[0]!.gzip.length + parts[1]!.gzip.length)} bytes gzip -9`);
table('Package', packageOf);
if (process.argv.includes('--modules')) table('Module', moduleName);

const inFirst = new Set(parts[0]!.owners.filter(Boolean));
const twice = [...new Set(parts[1]!.owners.filter((source) => source && inFirst.has(source)))].map(moduleName);
console.log(`\nModules with code in both parts: ${twice.length ? twice.join(', ') : 'none'}`);
