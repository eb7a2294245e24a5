// The widget's two parts are two folders: src/widget/element (drawn at once) and
// src/widget/answer-engine (loaded later). The first reaches the second only through the loader's
// import(); the second needs nothing from the first at run time. A static import across would pull
// the answer engine into every page view (or the first part into the engine's chunk).
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { importsOf, sources, type Import } from '../support/imports.js';

const widget = fileURLToPath(new URL('../../src/widget/', import.meta.url));
const ELEMENT = join(widget, 'element');
const ENGINE = join(widget, 'answer-engine');
const LOADER = join(ELEMENT, 'answer-engine-loader.ts');

const inside = (folder: string, path: string) => !relative(folder, path).startsWith('..');
const name = (path: string) => relative(widget, path);

/** The first part's imports of the second that bring code with them, other than the loader's `import()`. */
export function crossingsFromElement(imports: Import[]): string[] {
  return imports
    .filter((i) => inside(ENGINE, i.target) && !i.typeOnly && !(i.dynamic && i.file === LOADER))
    .map((i) => `${name(i.file)} imports ${name(i.target)}${i.dynamic ? ' with import()' : ''}`);
}

test('the first part (src/widget/element) reaches the answer engine only through the loader', () => {
  const imports = sources(ELEMENT).flatMap((file) => importsOf(file));
  assert.ok(imports.some((i) => i.file === LOADER && i.dynamic && i.target === join(ENGINE, 'index.ts')), "the loader's import() of answer-engine/index.ts");
  assert.deepEqual(crossingsFromElement(imports), []);
});

test('the answer engine (src/widget/answer-engine) needs no code of the first part', () => {
  const crossings = sources(ENGINE)
    .flatMap((file) => importsOf(file))
    .filter((i) => inside(ELEMENT, i.target) && !i.typeOnly)
    .map((i) => `${name(i.file)} imports ${name(i.target)}`);
  assert.deepEqual(crossings, []);
});

const SESSIONS = join(ENGINE, 'sessions');
const KEEPER = [join(SESSIONS, 'visitor-session.ts'), join(SESSIONS, 'solver.ts'), join(SESSIONS, 'solver.worker.ts')];
const PROTOCOL_SESSIONS = fileURLToPath(new URL('../../src/protocol/sessions/', import.meta.url));
/** The protocol's sessions folder, which the keeper imports through its door for the solve loop (the rest is dropped as unused). */
const SOLVE_LOOP = [join(PROTOCOL_SESSIONS, 'index.ts'), join(PROTOCOL_SESSIONS, 'solve.ts'), join(PROTOCOL_SESSIONS, 'contract.ts')];

/** Imports that bring code into or out of the session keeper's chunk, other than the gate's `import()` of it. */
export function crossingsOfKeeper(imports: Import[]): string[] {
  return imports
    .filter((i) => !i.typeOnly && !i.dynamic && (KEEPER.includes(i.file) ? !KEEPER.includes(i.target) && !SOLVE_LOOP.includes(i.target) : KEEPER.includes(i.target)))
    .map((i) => `${name(i.file)} imports ${relative(join(widget, '..'), i.target)}`);
}

// The keeper's chunk gets what it uses of the second part as an argument: an import between the two chunks would
// make the second part, fetched by every visitor, export its inner names and wrap its exports in a namespace object.
test("the session keeper's chunk imports no code of the rest of the second part, nor the rest imports its code", () => {
  const imports = [...sources(ENGINE), ...sources(join(widget, '..', 'protocol'))].flatMap((file) => importsOf(file));
  assert.ok(imports.some((i) => i.file === join(SESSIONS, 'gate.ts') && i.dynamic && i.target === KEEPER[0]), "the gate's import() of sessions/visitor-session.ts");
  assert.deepEqual(crossingsOfKeeper(imports), []);
  const broken = importsOf(KEEPER[0]!, "import { failureFromResponse } from '../failures.js';\nimport { solveSessionChallenge } from '../../../protocol/sessions/index.js';\nimport type { KeeperNeeds } from './keeper-needs.js';\n");
  assert.deepEqual(crossingsOfKeeper(broken), ['answer-engine/sessions/visitor-session.ts imports widget/answer-engine/failures.ts']);
});

test('the check catches a static import of the answer engine in the first part', () => {
  const file = join(ELEMENT, 'kagent-chat.ts');
  const imports = importsOf(file, "import { renderMarkdown } from '../answer-engine/markdown/incremental-markdown.js';\nimport type { AskOptions } from '../answer-engine/answer-request.js';\nconst engine = import('../answer-engine/index.js');\n");
  assert.deepEqual(crossingsFromElement(imports), [
    'element/kagent-chat.ts imports answer-engine/markdown/incremental-markdown.ts',
    'element/kagent-chat.ts imports answer-engine/index.ts with import()',
  ]);
});

test('src/widget shows its two parts: two folders and at most six files at its top level', () => {
  const entries = readdirSync(widget, { withFileTypes: true });
  assert.deepEqual(entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort(), ['answer-engine', 'element']);
  const files = entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
  assert.ok(files.length <= 6, `top-level files: ${files.join(', ')}`);
});
