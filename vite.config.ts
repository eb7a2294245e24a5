import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { minify } from 'terser';
import { defineConfig, type Plugin } from 'vite';
import { KEEPER_FOR_DOMPURIFY_PART, dompurifyInside, keeperSolvesInItsWorker, partsShareNoModule, removeOldAnswerChunks, secondPartWithDomPurify } from './scripts/script-tag-chunks.js';
import { dompurifyConstantsMarkedPure, dompurifyEntriesWithoutBabelDestructuring, dompurifyWithoutDefaultAllowLists, dompurifyWithoutUnusedOptionsAndMethods, dropUnusedPrototypeHelpers, markedWithDefaultOptionsFolded, markedWithoutDefaultInstance, markedWithoutUnreadPatterns, markedWithoutUnusedModes } from './scripts/trim-libraries.js';
import { LICENSES_BANNER, carriesLibraries, thirdPartyLicenses } from './scripts/third-party-licenses.js';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** Squeezes the whitespace out of Lit `css` templates, which minifiers leave as written. */
const minifyCss = (css: string) =>
  css
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\s+/g, ' ')
    // Not before a colon: `a :hover` (any hovered descendant) is not `a:hover`.
    .replace(/\s*([{};,>])\s*/g, '$1')
    .replace(/:\s+/g, ':')
    .replace(/;}/g, '}')
    // The shortest spellings of what the sources write for legibility: !important, [a=b], .5, a/b.
    .replace(/\s+!important/g, '!important')
    .replace(/\[([\w-]+)([\^$*|~]?=)'([a-z][\w-]*)'\]/gi, '[$1$2$3]')
    .replace(/([^\w.])0\.(\d)/g, '$1.$2')
    .replace(/\s*\/\s*/g, '/')
    .trim();


/**
 * Squeezes the indentation out of Lit `html` and `svg` templates, which minifiers leave as written:
 * a run of white space that spans lines becomes one space (HTML shows either as one space, so
 * nothing drawn changes), and a comment held in one stretch of static text goes.
 */
const squeezeTemplates = (): Plugin => ({
  name: 'kagent-squeeze-templates',
  apply: 'build',
  transform(code, id) {
    if (!/\/src\/widget\/(element|answer-engine)\/[^/]+\.ts$/.test(id) || !/\b(html|svg)`/.test(code)) return undefined;
    const edits: { start: number; end: number; text: string }[] = [];
    const visit = (node: unknown): void => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) return node.forEach(visit);
      const n = node as { type?: string; tag?: { type: string; name?: string }; quasi?: { quasis: { start: number; end: number }[] } };
      if (n.type === 'TaggedTemplateExpression' && n.tag?.type === 'Identifier' && (n.tag.name === 'html' || n.tag.name === 'svg')) {
        for (const { start, end } of n.quasi!.quasis) {
          const text = code.slice(start, end);
          const squeezed = text.replace(/<!--(?:(?!-->)[\s\S])*-->/g, '').replace(/\s*\n\s*/g, ' ');
          if (squeezed !== text) edits.push({ start, end, text: squeezed });
        }
      }
      for (const value of Object.values(node)) if (value && typeof value === 'object') visit(value);
    };
    visit(this.parse(code));
    if (!edits.length) return undefined;
    let out = code;
    for (const { start, end, text } of edits.sort((a, b) => b.start - a.start)) out = out.slice(0, start) + text + out.slice(end);
    return { code: out, map: null };
  },
});

/**
 * A second minifying pass, by terser, over the files Oxc minified: each finds what the other
 * leaves (measured on this build: about 0.2 KB gzipped off the whole chat; terser alone in Oxc's
 * place gave a larger build). Safe transforms only (terser's defaults less two, two passes); names
 * a page may import stay. Each file's source map is carried through, so it still points at the sources.
 */
const terserPass = (): Plugin => ({
  name: 'kagent-terser-pass',
  apply: 'build',
  async writeBundle(options, bundle) {
    for (const chunk of Object.values(bundle)) {
      if (chunk.type !== 'chunk') continue;
      const file = `${options.dir}/${chunk.fileName}`;
      const code = readFileSync(file, 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '');
      const map = JSON.parse(readFileSync(`${file}.map`, 'utf8'));
      const result = await minify(code, {
        module: options.format === 'es',
        ecma: 2020,
        // Measured on this build: statements left apart and functions left uninlined compress better (about 50 bytes).
        compress: { passes: 2, sequences: false, inline: false },
        // A chunk with a library's code names the file of their licences (third-party-licenses.ts); terser shifts the map for it.
        format: { comments: false, preamble: carriesLibraries(chunk.moduleIds) ? LICENSES_BANNER : undefined },
        sourceMap: { content: map, asObject: true },
      });
      const name = chunk.fileName.split('/').pop()!;
      writeFileSync(file, `${result.code}\n//# sourceMappingURL=${name}.map\n`);
      writeFileSync(`${file}.map`, JSON.stringify({ ...(result.map as object), file: name }));
    }
  },
});


// `vite` serves the demo page from demo/; `vite build` makes the script-tag
// build: dist/kagent-chat.js, an ES module (Lit and the element: what draws
// the chat and takes a question) that defines <kagent-chat>, and beside it
// dist/kagent-chat-answers-<hash>.js (marked, the incremental renderer and its
// sanitizer, citations, the request and fetch-event-source's stream parser), which the first
// imports from its own address when first needed, and dist/kagent-chat-sanitizer-<hash>.js
// (DOMPurify), which the second imports only in a browser without a sanitizer of its own.
// (The npm ES modules, dependencies left external, come from tsc.)
//
// KAGENT_SINGLE_FILE=1 builds the chat as one classic script instead (an IIFE
// with everything inside and `window.KagentChat`, as before the split), for
// bench/widget-load.bench.ts to compare with; give it another --outDir.
const singleFile = process.env.KAGENT_SINGLE_FILE === '1';

export default defineConfig(({ command }) => ({
  root: here('./demo'),
  // Built files find each other beside themselves (the solver Worker's address is made from the second part's own), wherever a site puts them.
  base: command === 'build' ? './' : '/',
  server: { host: '127.0.0.1' },
  // The demo page loads the built script-tag file; a build must not copy dist/ into itself.
  publicDir: command === 'serve' ? here('./dist') : false,
  plugins: [
    {
      name: 'kagent-minify-styles',
      apply: 'build',
      transform(code, id) {
        if (!id.endsWith('.styles.ts')) return undefined;
        // A template's text may hold escaped backticks (`\``, in comments): they do not end it.
        return { code: code.replace(/css`((?:\\[\s\S]|[^`\\])*)`/g, (_, body: string) => `css\`${minifyCss(body)}\``), map: null };
      },
    },
    {
      // package.json's `sideEffects` names the built files (for the npm entry): Vite's resolver reads it, finds
      // src/widget/index.ts unnamed and would drop its customElements.define. The entry's module says so itself.
      name: 'kagent-entry-defines',
      apply: 'build',
      transform(code, id) {
        return id.endsWith('/src/widget/index.ts') ? { code, map: null, moduleSideEffects: true } : undefined;
      },
    },
    squeezeTemplates(),
    terserPass(),
    // (The second part with DOMPurify bundles nothing the first build's licences file leaves out.)
    ...(KEEPER_FOR_DOMPURIFY_PART ? [dompurifyInside(KEEPER_FOR_DOMPURIFY_PART)] : [thirdPartyLicenses()]),
    markedWithoutDefaultInstance(),
    markedWithoutUnusedModes(),
    // After the cut of marked's default instance, which alone sets its defaults.
    markedWithDefaultOptionsFolded(),
    // After the fold, which leaves the patterns that only `pedantic` reads in branches that can no longer run.
    markedWithoutUnreadPatterns(),
    dompurifyWithoutDefaultAllowLists(),
    dompurifyWithoutUnusedOptionsAndMethods(),
    dompurifyEntriesWithoutBabelDestructuring(),
    dropUnusedPrototypeHelpers(/\/node_modules\/dompurify\/dist\/purify\.es\.mjs$/),
    dompurifyConstantsMarkedPure(),
    ...(singleFile || KEEPER_FOR_DOMPURIFY_PART ? [] : [keeperSolvesInItsWorker(), removeOldAnswerChunks(), secondPartWithDomPurify(), partsShareNoModule()]),
  ],
  // The visitor-session solver's Worker (src/widget/answer-engine/sessions/solver.worker.ts) as a chunk of its own, kagent-chat-solver-<hash>.js:
  // only the single-file build makes it; the split build starts the keeper's own chunk (keeperSolvesInItsWorker).
  worker: {
    format: 'es' as const,
    rolldownOptions: {
      treeshake: { moduleSideEffects: false },
      output: { entryFileNames: 'kagent-chat-solver-[hash].js', minify: true, comments: { annotation: false } },
    },
  },
  build: {
    outDir: here('./dist'),
    // tsc writes the npm modules into dist/ too.
    emptyOutDir: false,
    target: 'es2022',
    sourcemap: true,
    lib: KEEPER_FOR_DOMPURIFY_PART
      ? { entry: here('./src/widget/answer-engine/index.ts'), formats: ['es'], fileName: () => 'kagent-chat-answers-dompurify-[hash].js' }
      : singleFile
        ? { entry: here('./src/widget/index.ts'), name: 'KagentChat', formats: ['iife'], fileName: () => 'kagent-chat.js' }
        : { entry: here('./src/widget/script-tag.ts'), formats: ['es'], fileName: () => 'kagent-chat.js' },
    rolldownOptions: {
      // Rolldown's slow-plugin report (yellow [PLUGIN_TIMINGS] blocks, about terser's pass, which is slow by design) only when
      // asked for: KAGENT_BUILD_TIMINGS=1 npx vite build.
      checks: { bundlerTimings: process.env.KAGENT_BUILD_TIMINGS === '1' },
      // Only the entry defines anything; every other module is pure, so what the widget doesn't use is dropped.
      treeshake: { moduleSideEffects: (id: string) => id.endsWith('/src/widget/index.ts') },
      // Minified whitespace too: library mode would leave it for a bundler, but nothing bundles this file again
      // (so the `@__PURE__` notes meant for a bundler go as well).
      output: {
        // DOMPurify, fetched only by a browser without a sanitizer of its own, in a chunk named for it.
        // The visitor-session keeper and its solver, fetched only from a proxy with sessions on, likewise;
        // and the keeper's Turnstile check, only from a proxy that asks for one.
        chunkFileNames: (chunk) =>
          chunk.moduleIds.some((id) => id.endsWith('/markdown/dompurify-sanitizer.ts'))
            ? 'kagent-chat-sanitizer-[hash].js'
            : chunk.moduleIds.some((id) => id.endsWith('/answer-engine/sessions/visitor-session.ts'))
              ? 'kagent-chat-sessions-[hash].js'
              : chunk.moduleIds.some((id) => id.endsWith('/answer-engine/sessions/human-check.ts'))
                ? 'kagent-chat-human-check-[hash].js'
                : 'kagent-chat-answers-[hash].js',
        minify: true,
        comments: { annotation: false },
      },
    },
  },
}));
