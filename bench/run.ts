// `npm run bench`: runs every bench/*.bench.ts in turn, each in its own
// process so one bench's memory and timers never skew another's figures.
// `npm run bench -- proxy` runs only the benches whose name contains "proxy".
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const only = process.argv.slice(2);
const dir = new URL('./', import.meta.url);
const benches = readdirSync(dir)
  .filter((name) => name.endsWith('.bench.ts'))
  .filter((name) => only.length === 0 || only.some((word) => name.includes(word)))
  .sort();

if (benches.length === 0) {
  console.error(only.length ? `No bench matches ${only.join(', ')}.` : 'No bench/*.bench.ts found.');
  process.exit(1);
}

let failed = 0;
for (const name of benches) {
  console.log(`\n## ${name}\n`);
  const { status } = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', new URL(name, dir).pathname], { stdio: 'inherit' });
  if (status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
