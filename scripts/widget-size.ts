// `npm run size -- [--no-build] [--modules]`: where the script-tag build's
// gzipped bytes go. Builds dist/ (unless --no-build), then for the first part (dist/kagent-chat.js),
// the second (dist/kagent-chat-answers-<hash>.js), the second with DOMPurify inside (dist/kagent-chat-answers-dompurify-<hash>.js,
// fetched instead by a browser without a sanitizer of its own), DOMPurify's chunk (dist/kagent-chat-sanitizer-<hash>.js)
// and the whole, prints each package's
// gzip-weighted share (read from the source maps; see scripts/bundle-shares.ts), with --modules
// each source module's too, and any module bundled into more than one file.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { moduleName, packageOf, readBuilt, shares, type BuiltFile } from './bundle-shares.js';

const root = new URL('../', import.meta.url);
const dist = new URL('dist/', root);
if (!process.argv.includes('--no-build')) {
  const result = spawnSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(1);
}
const chunk = (kind: string) => {
  // (`answers-` and a hash of 8 characters: never `answers-dompurify-`.)
  const name = readdirSync(dist).find((file) => new RegExp(`^kagent-chat-${kind}-(?!dompurify-)[\\w-]+\\.js$`).test(file));
  if (!name) throw new Error(`No kagent-chat-${kind}-*.js in dist/: run without --no-build`);
  return name;
};
const names = ['kagent-chat.js', chunk('answers'), chunk('answers-dompurify'), chunk('sanitizer'), chunk('sessions'), chunk('human-check')];
const parts = names.map((name) => readBuilt(dist, name));
const titles = ['first part', 'second part', 'second part with DOMPurify', 'DOMPurify chunk', 'session keeper (and its solver Worker\'s script)', 'Turnstile check'];

const n = (count: number) => count.toLocaleString('en-US');
function table(title: string, groupOf: (source: string | null) => string) {
  const perPart = parts.map((part) => shares(part, groupOf));
  const groups = [...new Set(perPart.flatMap((part) => [...part.keys()]))];
  const total = (group: string) => perPart.reduce((sum, part) => sum + (part.get(group)?.gzip ?? 0), 0);
  groups.sort((a, b) => total(b) - total(a));
  console.log(`\n| ${title} | ${titles.map((t) => `${t}, gzip`).join(' | ')} | all, gzip | all, minified |\n|---|${titles.map(() => '---:|').join('')}---:|---:|`);
  for (const group of groups) {
    const shown = perPart.map((part) => part.get(group));
    console.log(`| ${group} | ${shown.map((share) => (share ? n(share.gzip) : '-')).join(' | ')} | ${n(total(group))} | ${n(shown.reduce((sum, share) => sum + (share?.raw ?? 0), 0))} |`);
  }
  const sums = perPart.map((part) => [...part.values()].reduce((sum, share) => sum + share.gzip, 0));
  console.log(`| (sum of the shares) | ${sums.map(n).join(' | ')} | ${n(sums.reduce((a, b) => a + b, 0))} | |`);
}

const size = (part: BuiltFile) => `${n(part.gzip.length)} bytes gzip -9 (${n(part.code.length)} minified)`;
const [first, second, secondWithDomPurify, sanitizer, keeper, humanCheck] = parts as [BuiltFile, BuiltFile, BuiltFile, BuiltFile, BuiltFile, BuiltFile];
console.log(`First part, dist/${names[0]}: ${size(first)}`);
console.log(`Second part, dist/${names[1]}: ${size(second)}`);
console.log(`Second part with DOMPurify inside (browsers without a sanitizer of their own), dist/${names[2]}: ${size(secondWithDomPurify)}`);
console.log(`DOMPurify alone (fetched after the second part where the first part took the browser's sanitizer for one it cannot use), dist/${names[3]}: ${size(sanitizer)}`);
// The keeper's chunk is its solver Worker's script too (vite.config.ts, keeperSolvesInItsWorker): fetched once.
console.log(`Session keeper and its solver Worker's script (only from a proxy with sessions on), dist/${names[4]}: ${size(keeper)}`);
console.log(`Cloudflare Turnstile check (only from a proxy that asks for it), dist/${names[5]}: ${size(humanCheck)}`);
const sessions = keeper.gzip.length;
const whole = first.gzip.length + second.gzip.length;
console.log(`Whole chat with the browser's own sanitizer (Chromium, Firefox): ${n(whole)} bytes gzip -9; with sessions on ${n(whole + sessions)}`);
const safari = first.gzip.length + secondWithDomPurify.gzip.length;
console.log(`Whole chat with DOMPurify (Safari): ${n(safari)} bytes gzip -9; with sessions on ${n(safari + sessions)}`);
table('Package', packageOf);
if (process.argv.includes('--modules')) table('Module', moduleName);

const seen = new Map<string, number>();
for (const part of parts) for (const source of new Set(part.owners.filter(Boolean) as string[])) seen.set(source, (seen.get(source) ?? 0) + 1);
const twice = [...seen].filter(([, count]) => count > 1).map(([source]) => moduleName(source));
console.log(`\nModules with code in more than one file: ${twice.length ? twice.join(', ') : 'none'}`);
