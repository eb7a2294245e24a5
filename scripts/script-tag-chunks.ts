// The script-tag build's files beyond the first part (vite.config.ts uses these plugins): which chunks a build
// leaves in dist/, the session keeper's chunk as its own solver Worker's script, and the second part with DOMPurify
// inside. Apart from the config so that test/node/script-tag-chunks.test.ts can hold each one to the errors it raises.
import { readdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build, type Plugin, type Rolldown } from 'vite';

const here = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));

/**
 * `code` (the source at `file`) with each `[from, to]` made: the build fails if `from` is not there exactly once, so a
 * rewrite by exact words never builds something else once its words change (`plugin`: where to read why).
 */
function editOnce(context: { error(message: string): never }, plugin: string, file: string, code: string, edits: [from: string, to: string][]): string {
  let out = code;
  for (const [from, to] of edits) {
    if (out.split(from).length !== 2) context.error(`${file} no longer says \`${from}\` once: see ${plugin} in scripts/script-tag-chunks.ts`);
    out = out.replace(from, () => to);
  }
  return out;
}

/** The script-tag build's second part, `kagent-chat-answers-<hash>.js`, and with DOMPurify inside, `kagent-chat-answers-dompurify-<hash>.js`, DOMPurify's chunk, `kagent-chat-sanitizer-<hash>.js`, the session keeper's, `kagent-chat-sessions-<hash>.js`, its Turnstile check's, `kagent-chat-human-check-<hash>.js`, beside `kagent-chat.js` (and the solver Worker's chunk, `kagent-chat-solver-<hash>.js`, that earlier builds made). */
const ANSWERS_CHUNK = /^kagent-chat-(?:answers|sanitizer|sessions|human-check|solver)-[\w-]+\.js(?:\.map)?$/;

/** dist/ is not emptied (tsc writes there too): a build removes the second parts earlier builds left there, so only the one its kagent-chat.js imports ships. */
export const removeOldAnswerChunks = (): Plugin => {
  let outDir = '';
  return {
    name: 'kagent-remove-old-answer-chunks',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    buildStart() {
      let names: string[];
      try {
        names = readdirSync(outDir);
      } catch {
        return;
      }
      for (const name of names) if (ANSWERS_CHUNK.test(name)) rmSync(`${outDir}/${name}`, { force: true });
    },
  };
};

/**
 * The session keeper's chunk is its solver Worker's script too (src/widget/answer-engine/sessions/solver.ts,
 * `SOLVER_IN_THIS_FILE`): the page has just fetched it, so the Worker starts with no file of its own to fetch (one
 * round trip less before the solve) and the solve loop ships once (0.6 KB gzipped less than a Worker chunk). The
 * build turns the flag on and writes the Worker's address as the module's own; it fails if either is not there as
 * expected, or if the keeper's chunk imports another statically (a Worker would fetch and run it too).
 */
export const keeperSolvesInItsWorker = (): Plugin => {
  const solver = '/src/widget/answer-engine/sessions/solver.ts';
  const edits: [string, string][] = [
    ['const SOLVER_IN_THIS_FILE = false;', 'const SOLVER_IN_THIS_FILE = true;'],
    ["new URL('./solver.worker.js', import.meta.url)", 'new URL(import.meta.url)'],
  ];
  return {
    name: 'kagent-keeper-solves-in-its-worker',
    apply: 'build',
    enforce: 'pre',
    transform(code, id) {
      if (!id.endsWith(solver)) return undefined;
      return { code: editOnce(this, 'keeperSolvesInItsWorker', solver, code, edits), map: null };
    },
    generateBundle(_, bundle) {
      const keeper = Object.values(bundle).find((chunk) => chunk.type === 'chunk' && chunk.moduleIds.some((id) => id.endsWith(solver)));
      if (keeper?.type === 'chunk' && keeper.imports.length) this.error(`The session keeper's chunk (${keeper.fileName}) imports ${keeper.imports.join(', ')}: its solver Worker would run that too`);
    },
  };
};

/** Modules that both parts of the chat import (by the end of their address), which the second part gets as copies of its own (`partsShareNoModule`). */
const IN_BOTH_PARTS = ['/chunk-import.js', '/new-id.js', '/protocol/query-ids.js'];

/**
 * The second part's modules import the modules the first part imports too (IN_BOTH_PARTS) as copies of their own
 * (`?second-part`): Rolldown puts a module in one chunk only, and would make each a third file that the first part
 * fetches at once and the second imports from. (A site's bundler shares them: its page has loaded them.)
 */
export const partsShareNoModule = (): Plugin => ({
  name: 'kagent-parts-share-no-module',
  apply: 'build',
  enforce: 'pre',
  async resolveId(source, importer) {
    if (!importer?.includes('/src/widget/answer-engine/') || !IN_BOTH_PARTS.some((end) => source.endsWith(end))) return undefined;
    const resolved = await this.resolve(source, importer, { skipSelf: true });
    return resolved && { id: `${resolved.id}?second-part` };
  },
});

/** Set (to the session keeper chunk's file name) for the build of the second part with DOMPurify inside, which `secondPartWithDomPurify` starts. */
export const KEEPER_FOR_DOMPURIFY_PART = process.env.KAGENT_KEEPER_FOR_DOMPURIFY_PART;

/**
 * Where the browser has no sanitizer of its own (Safari today), the second part with DOMPurify inside,
 * `kagent-chat-answers-dompurify-<hash>.js`: one file fetched where two were fetched in turn, and about 0.6 KB gzipped
 * less than the two (one gzip stream, one module's glue). Rolldown puts a module in one chunk only, so a second build
 * makes it, once this one has named its chunks: it imports the session keeper's chunk by the name this build gave it,
 * and this build's first part learns its name (answer-engine-loader.ts, `WITH_DOMPURIFY`), written over a placeholder
 * of the same length so the source map holds.
 */
export const secondPartWithDomPurify = (): Plugin => {
  const loader = '/src/widget/element/answer-engine-loader.ts';
  const flag = 'const WITH_DOMPURIFY: string | undefined = undefined;';
  const placeholder = './kagent-chat-answers-dompurify-########.js';
  let outDir = '';
  return {
    name: 'kagent-second-part-with-dompurify',
    apply: 'build',
    enforce: 'pre',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    transform(code, id) {
      if (!id.endsWith(loader)) return undefined;
      return { code: editOnce(this, 'secondPartWithDomPurify', loader, code, [[flag, `const WITH_DOMPURIFY = ${JSON.stringify(placeholder)};`]]), map: null };
    },
    async generateBundle(_, bundle) {
      const chunks = Object.values(bundle).filter((file): file is Rolldown.OutputChunk => file.type === 'chunk');
      const first = chunks.find((chunk) => chunk.moduleIds.some((id) => id.endsWith(loader)));
      const keeper = chunks.find((chunk) => chunk.moduleIds.some((id) => id.endsWith('/answer-engine/sessions/visitor-session.ts')));
      if (!first?.code.includes(placeholder) || !keeper) this.error('The first part or the session keeper\'s chunk is not where secondPartWithDomPurify expects them');
      process.env.KAGENT_KEEPER_FOR_DOMPURIFY_PART = keeper.fileName;
      let output;
      try {
        output = await build({ configFile: here('vite.config.ts'), logLevel: 'warn', build: { outDir } });
      } finally {
        delete process.env.KAGENT_KEEPER_FOR_DOMPURIFY_PART;
      }
      const files = (Array.isArray(output) ? output : [output]).flatMap((result) => ('output' in result ? result.output : []));
      const built = files.filter((file) => file.type === 'chunk');
      const name = `./${built[0]?.fileName}`;
      if (built.length !== 1 || name.length !== placeholder.length) this.error(`The second part with DOMPurify came out as ${built.map((file) => file.fileName).join(', ')}: one chunk named like ${placeholder} expected`);
      first.code = first.code.replace(placeholder, name);
    },
  };
};

/**
 * The second build of `secondPartWithDomPurify`: sanitize.ts imports DOMPurify's module statically instead of
 * fetching it, and the session keeper's chunk is the one the first build named. This part is loaded only where the
 * browser has no `Sanitizer` (answer-engine-loader.ts), so sanitize.ts's look for one, which would find none, goes:
 * its sanitizer is DOMPurify's, and `nativeSanitizer` and what only it uses go as unused.
 */
export const dompurifyInside = (keeper: string): Plugin => {
  const sanitize = '/src/widget/answer-engine/markdown/sanitize.ts';
  const fetched = "import('./dompurify-sanitizer.js')";
  const lookedFor = 'const found = (): Sanitize | undefined => (native ??= nativeSanitizer() ?? null) ?? purified;';
  return {
    name: 'kagent-dompurify-inside',
    enforce: 'pre',
    transform(code, id) {
      // Exported as DOMPurify's own chunk exports it, so that the tests can hold this build's DOMPurify to the released one.
      if (id.endsWith('/src/widget/answer-engine/index.ts')) return { code: `${code}\nexport { domPurifySanitizer } from './markdown/dompurify-sanitizer.js';\n`, map: null };
      if (!id.endsWith(sanitize)) return undefined;
      const out = editOnce(this, 'dompurifyInside', sanitize, code, [
        [fetched, 'Promise.resolve({ domPurifySanitizer })'],
        [lookedFor, 'const found = (): Sanitize | undefined => purified;'],
      ]);
      return { code: `import { domPurifySanitizer } from './dompurify-sanitizer.js';\n${out}`, map: null };
    },
    resolveId(source, importer) {
      return source === './visitor-session.js' && importer?.endsWith('/answer-engine/sessions/gate.ts') ? { id: `./${keeper}`, external: true } : undefined;
    },
  };
};
