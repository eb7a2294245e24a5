// Reads a `node --cpu-prof` profile and prints the longest stretches in which the thread never
// went idle (what a waiting request sees, whatever the machine's load), each with the
// functions that took most of it. `node --import tsx bench/support/cpu-blocks.ts <file> [count]`
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, countArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: cpu-blocks.ts <profile.cpuprofile> [count]');
  process.exit(1);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

const label = (node: ProfileNode): string => {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url ? `${url.replace(/^.*\/(node_modules|emulator|src)\//, '$1/')}:${lineNumber + 1}` : '';
  return `${functionName || '(anonymous)'} ${where}`.trim();
};
const idle = (id: number): boolean => ['(idle)', '(program)'].includes(byId.get(id)!.callFrame.functionName);

interface Block {
  start: number;
  ms: number;
  samples: number[];
}
const blocks: Block[] = [];
let time = 0;
let current: Block | undefined;
for (let i = 0; i < profile.samples.length; i++) {
  const delta = profile.timeDeltas[i]! / 1000;
  time += delta;
  const id = profile.samples[i]!;
  if (idle(id)) {
    if (current) blocks.push(current);
    current = undefined;
    continue;
  }
  current ??= { start: time - delta, ms: 0, samples: [] };
  current.ms += delta;
  current.samples.push(id);
}
if (current) blocks.push(current);
blocks.sort((a, b) => b.ms - a.ms);

for (const block of blocks.slice(0, Number(countArg ?? 5))) {
  console.log(`\n${block.ms.toFixed(1)} ms without a break, from ${(block.start / 1000).toFixed(2)} s`);
  // Inclusive share of each function over the block's samples.
  const inclusive = new Map<string, number>();
  for (const sample of block.samples) {
    const seen = new Set<string>();
    for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) {
      const name = label(byId.get(id)!);
      if (seen.has(name) || name === '(root)') continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + 1);
    }
  }
  const top = [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, 14);
  for (const [name, count] of top) console.log(`  ${((100 * count) / block.samples.length).toFixed(0).padStart(3)}%  ${name}`);
  const self = new Map<string, number>();
  for (const sample of block.samples) self.set(label(byId.get(sample)!), (self.get(label(byId.get(sample)!)) ?? 0) + 1);
  console.log('  self:');
  for (const [name, count] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 6)) console.log(`  ${((100 * count) / block.samples.length).toFixed(0).padStart(3)}%  ${name}`);
}

// With LIST=1, every block over 40 ms in time order, with its most frequent own function.
if (process.env.LIST) {
  console.log('\nblocks over 40 ms, in time order:');
  for (const block of blocks.filter((candidate) => candidate.ms > 40).sort((a, b) => a.start - b.start)) {
    const self = new Map<string, number>();
    for (const sample of block.samples) self.set(label(byId.get(sample)!), (self.get(label(byId.get(sample)!)) ?? 0) + 1);
    const [name] = [...self].sort((a, b) => b[1] - a[1])[0]!;
    console.log(`  ${(block.start / 1000).toFixed(2).padStart(7)} s  ${block.ms.toFixed(0).padStart(5)} ms  ${name}`);
  }
}
