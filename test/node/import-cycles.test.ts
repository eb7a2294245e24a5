// No import cycle anywhere in src/: each feature is a folder whose door (index.ts) the rest imports, types flow down
// from src/protocol, and nothing below imports back up. A type-only or dynamic import counts too.
import assert from 'node:assert/strict';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { importCycles, importsOf, sources } from '../support/imports.js';

const src = fileURLToPath(new URL('../../src/', import.meta.url));
const named = (cycles: string[][]) => cycles.map((cycle) => cycle.map((file) => relative(src, file)).join(' -> '));

test('no module in src/ imports itself through others', () => {
  assert.deepEqual(named(importCycles(sources(src).flatMap((file) => importsOf(file)))), []);
});

test('the check finds a cycle made of type-only and dynamic imports, and one of a module importing itself', () => {
  const file = (name: string) => join(src, 'widget', name);
  const imports = [
    ...importsOf(file('gate.ts'), "import type { Keeper } from './keeper.js';\nconst keeper = () => import('./keeper.js');\n"),
    ...importsOf(file('keeper.ts'), "import { solve } from './solver.js';\n"),
    ...importsOf(file('solver.ts'), "import type { Needs } from './gate.js';\nimport { lanes } from './lanes.js';\n"),
    ...importsOf(file('lanes.ts'), "export * from './lanes.js';\n"),
    ...importsOf(file('alone.ts'), "import { lanes } from './lanes.js';\n"),
  ];
  assert.deepEqual(named(importCycles(imports)), ['widget/lanes.ts -> widget/lanes.ts', 'widget/gate.ts -> widget/keeper.ts -> widget/solver.ts -> widget/gate.ts']);
});
