#!/usr/bin/env node
// `kagent-proxy`: always the built command (dist/), so an installed copy runs
// what was published whatever else is on the machine. In a checkout,
// `npm run build` makes dist/; the tests run src/proxy/node/cli.ts through tsx.
import { existsSync } from 'node:fs';

const built = new URL('../dist/proxy/node/cli.js', import.meta.url);
if (!existsSync(built)) {
  console.error('kagent-proxy: dist/proxy/node/cli.js is missing: run `npm run build` first.');
  process.exit(1);
}
await import(built.href);
