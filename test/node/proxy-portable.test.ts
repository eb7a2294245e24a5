import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';

// Only these open sockets or serve HTTP themselves; everything else must run on any runtime with fetch.
const NODE_ONLY = new Set(['node.ts', 'node-fetch.ts', 'node-upstream-call.ts', 'node-decoder.ts', 'node-visitor.ts', 'node-read-capped.ts', 'node-log.ts', 'node-connections.ts', 'node-workers.ts', 'cli.ts', 'redis-node.ts']);

test('the proxy core and the edge entries import no Node module and no Node-only global', () => {
  const dir = new URL('../../src/proxy/', import.meta.url);
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts') && !NODE_ONLY.has(f));
  assert.ok(files.includes('proxy.ts') && files.includes('cloudflare.ts'));
  for (const file of files) {
    const source = readFileSync(new URL(file, dir), 'utf8');
    assert.doesNotMatch(source, /from ['"](node:|srvx|undici|@redis\/client)|require\(/, `${file} imports a Node module`);
    assert.doesNotMatch(source, /\bBuffer\.|__dirname|setImmediate/, `${file} uses a Node-only global`);
    // process.env only where the platform itself provides it (Vercel and Bun).
    if (!['vercel.ts', 'bun.ts'].includes(file)) assert.doesNotMatch(source, /\bprocess\.(env|argv|exit|on|stdout|stderr)/, `${file} uses process`);
  }
});
