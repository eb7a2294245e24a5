import { test } from 'node:test';
import assert from 'node:assert/strict';
import { composeAnswer } from '../../src/emulator/answers/compose.js';
import type { Retrieved } from '../../src/emulator/answers/retrieve.js';

const hit = (name: string, text: string) => ({ fragment: { text }, datasource: { name } }) as unknown as Retrieved;

test('an extractive answer quotes the prose that matches the question, not the code beside it', () => {
  const text = [
    "export { default } from 'kagent-chat/proxy/cloudflare';",
    'name = "kagent-proxy" main = "src/worker.ts"',
    'Deploy the proxy to Cloudflare Workers with wrangler deploy after setting its secrets.',
  ].join('\n\n');
  const answer = composeAnswer('How do I deploy the proxy to Cloudflare Workers?', [hit('docs/proxy.md', text)]);
  assert.equal(answer, 'According to docs/proxy.md: Deploy the proxy to Cloudflare Workers with wrangler deploy after setting its secrets. [1]');
});

test('a fragment that is only code is still quoted', () => {
  const answer = composeAnswer('cloudflare proxy export', [hit('worker.ts', "export { default } from 'kagent-chat/proxy/cloudflare';")]);
  assert.match(answer, /kagent-chat\/proxy\/cloudflare.*\[1\]$/);
});
