// `npm run bench -- memory-store`: what the memory store's counts cost in heap,
// measured at its default capacity. The store is filled to capacity with counts
// of one kind at a time, keys as the proxy writes them (an IPv6 /64, a spent
// challenge's 64-hex signature, a session id), and the heap compared after a full
// GC before and after, keys included (run.ts starts each bench with --expose-gc).
import { randomBytes } from 'node:crypto';
import { DEFAULT_MEMORY_STORE_MAX_KEYS, MemoryRateLimitStore } from '../src/proxy/stores/memory.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc (npm run bench -- memory-store does)');

const address = () => `${randomBytes(2).toString('hex')}:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}::/64`;
// Kept kinds are hit as 'reserve', which may fill the whole capacity ('refuse' stops at 80%).
const kinds: { name: string; key: () => string; whenFull: 'forget' | 'reserve' }[] = [
  { name: 'per-address query count (address:<IPv6 /64>)', key: () => `address:${address()}`, whenFull: 'forget' },
  { name: 'spent challenge (challenge-spent:<64 hex>)', key: () => `challenge-spent:${randomBytes(32).toString('hex')}`, whenFull: 'reserve' },
  { name: 'sessions minted (sessions-minted:<IPv6 /64>)', key: () => `sessions-minted:${address()}`, whenFull: 'reserve' },
  { name: "session's questions (session:<22-char id>)", key: () => `session:${randomBytes(16).toString('base64url')}`, whenFull: 'reserve' },
];

function heapAfterGc(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
}

const capacity = DEFAULT_MEMORY_STORE_MAX_KEYS;
console.log(`MemoryRateLimitStore at its default capacity, ${capacity.toLocaleString('en')} counts, filled with one kind at a time (Node ${process.version}).\n`);
console.log('| counts of | heap at capacity | bytes a count |');
console.log('|---|---|---|');
let most = 0;
for (const kind of kinds) {
  const before = heapAfterGc();
  const store = new MemoryRateLimitStore();
  for (let i = 0; i < capacity; i++) await store.hit(kind.key(), 3_600_000, { whenFull: kind.whenFull });
  if (store.size !== capacity) throw new Error(`the store holds ${store.size} counts, not ${capacity}`);
  const bytes = (heapAfterGc() - before) / capacity;
  most = Math.max(most, bytes);
  console.log(`| ${kind.name} | ${((bytes * capacity) / 1e6).toFixed(1)} MB | ${Math.round(bytes)} |`);
  await store.close();
}
console.log(`\nAt most ${Math.round(most)} bytes a count: ${((most * capacity) / 1e6).toFixed(0)} MB for ${capacity.toLocaleString('en')} counts.`);
