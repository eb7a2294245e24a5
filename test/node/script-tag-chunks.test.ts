// The script-tag build's chunk plugins (scripts/script-tag-chunks.ts) rewrite three of the chat's sources by their
// exact words: each must fail the build, rather than build something else, when those words change, and refuse a
// keeper's chunk that would make its solver Worker run another. (What the built files do is tested in the browsers:
// test/browser/widget-build.test.ts, widget-sanitizer-built.test.ts, the strict-page suites.)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { Plugin } from 'vite';
import { dompurifyInside, keeperSolvesInItsWorker, secondPartWithDomPurify } from '../../scripts/script-tag-chunks.js';

const root = new URL('../../', import.meta.url);
const source = (path: string) => [new URL(path, root).pathname, readFileSync(new URL(path, root), 'utf8')] as const;
const SOLVER = source('src/widget/answer-engine/sessions/solver.ts');
const LOADER = source('src/widget/element/answer-engine-loader.ts');
const SANITIZE = source('src/widget/answer-engine/markdown/sanitize.ts');

const context = {
  error(message: string): never {
    throw new Error(message);
  },
};
const transform = (plugin: Plugin, [id, code]: readonly [string, string]) =>
  (plugin.transform as unknown as (this: typeof context, code: string, id: string) => { code: string } | undefined).call(context, code, id)?.code;
type Bundle = Record<string, { type: 'chunk'; fileName: string; moduleIds: string[]; imports: string[]; code: string }>;
const generateBundle = (plugin: Plugin, bundle: Bundle) =>
  (plugin.generateBundle as unknown as (this: typeof context, options: object, bundle: Bundle) => unknown).call(context, {}, bundle);

test("the keeper's chunk becomes its solver Worker's script, and the build fails if the solver's words change", () => {
  const out = transform(keeperSolvesInItsWorker(), SOLVER)!;
  assert.match(out, /const SOLVER_IN_THIS_FILE = true;/);
  assert.match(out, /new Worker\(new URL\(import\.meta\.url\)/);
  assert.doesNotMatch(out, /solver\.worker\.js/);
  for (const words of ['const SOLVER_IN_THIS_FILE = false;', "new URL('./solver.worker.js', import.meta.url)"]) {
    assert.throws(() => transform(keeperSolvesInItsWorker(), [SOLVER[0], SOLVER[1].replace(words, 'changed')]), /no longer says/, words);
  }
  // Other modules pass untouched.
  assert.equal(transform(keeperSolvesInItsWorker(), LOADER), undefined);
});

test("the build fails if the keeper's chunk imports another chunk (its Worker would run it too)", () => {
  const keeper = { type: 'chunk' as const, fileName: 'kagent-chat-sessions-x.js', moduleIds: [SOLVER[0]], imports: [] as string[], code: '' };
  assert.doesNotThrow(() => generateBundle(keeperSolvesInItsWorker(), { keeper }));
  assert.throws(() => generateBundle(keeperSolvesInItsWorker(), { keeper: { ...keeper, imports: ['kagent-chat-answers-y.js'] } }), /imports kagent-chat-answers-y\.js: its solver Worker would run that too/);
});

test('the first part gets a placeholder for the second part with DOMPurify as long as its name, and the build fails if the loader changes', () => {
  const out = transform(secondPartWithDomPurify(), LOADER)!;
  const placeholder = /const WITH_DOMPURIFY = "(\.\/kagent-chat-answers-dompurify-[^"]+\.js)";/.exec(out)?.[1];
  assert.ok(placeholder, out);
  // A hash is 8 characters: the name written over it later keeps every column of the source map.
  assert.equal(placeholder.length, './kagent-chat-answers-dompurify-'.length + 8 + '.js'.length);
  assert.throws(() => transform(secondPartWithDomPurify(), [LOADER[0], LOADER[1].replace('const WITH_DOMPURIFY: string | undefined = undefined;', 'const WITH_DOMPURIFY = undefined;')]), /no longer says/);
});

test('the second build is not started when the first part or the keeper is not where expected', async () => {
  const plugin = secondPartWithDomPurify();
  const first = { type: 'chunk' as const, fileName: 'kagent-chat.js', moduleIds: [LOADER[0]], imports: [], code: 'import("./kagent-chat-answers-x.js")' };
  await assert.rejects(async () => generateBundle(plugin, { first }), /not where secondPartWithDomPurify expects them/);
  assert.equal(process.env.KAGENT_KEEPER_FOR_DOMPURIFY_PART, undefined);
});

test('in the second build, sanitize.ts takes DOMPurify in statically and looks for no browser sanitizer, the keeper is the first build\'s, and the build fails if sanitize.ts changes', () => {
  const plugin = dompurifyInside('kagent-chat-sessions-abcdefgh.js');
  const out = transform(plugin, SANITIZE)!;
  assert.match(out, /^import \{ domPurifySanitizer \} from '\.\/dompurify-sanitizer\.js';/);
  assert.doesNotMatch(out, /import\('\.\/dompurify-sanitizer\.js'\)/);
  assert.match(out, /Promise\.resolve\(\{ domPurifySanitizer \}\)/);
  assert.throws(() => transform(plugin, [SANITIZE[0], SANITIZE[1].replace("import('./dompurify-sanitizer.js')", "import('./another.js')")]), /no longer says/);
  // Loaded only where the browser has no Sanitizer: the look for one goes, and nativeSanitizer with it (unused).
  assert.match(out, /const found = \(\): Sanitize \| undefined => purified;/);
  assert.doesNotMatch(out, /= nativeSanitizer\(\)/);
  assert.throws(() => transform(plugin, [SANITIZE[0], SANITIZE[1].replace('(native ??= nativeSanitizer() ?? null) ?? purified', 'purified ?? (native ??= nativeSanitizer() ?? null)')]), /no longer says `const found/);
  // The answer engine's entry exports DOMPurify's sanitizer too, for the tests that hold it to the released one.
  assert.match(transform(plugin, source('src/widget/answer-engine/index.ts'))!, /export \{ domPurifySanitizer \} from '\.\/markdown\/dompurify-sanitizer\.js';/);
  const resolveId = plugin.resolveId as unknown as (source: string, importer: string | undefined) => unknown;
  assert.deepEqual(resolveId('./visitor-session.js', '/repo/src/widget/answer-engine/sessions/gate.ts'), { id: './kagent-chat-sessions-abcdefgh.js', external: true });
  assert.equal(resolveId('./visitor-session.js', '/repo/src/widget/answer-engine/sessions/other.ts'), undefined);
});
