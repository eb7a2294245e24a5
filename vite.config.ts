import { readdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** Squeezes the whitespace out of Lit `css` templates, which minifiers leave as written. */
const minifyCss = (css: string) =>
  css
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\s+/g, ' ')
    .replace(/\s*([{}:;,>])\s*/g, '$1')
    .replace(/;}/g, '}')
    .trim();

/** The script-tag build's second part: `kagent-chat-answers-<hash>.js`, beside `kagent-chat.js`. */
const ANSWERS_CHUNK = /^kagent-chat-answers-[\w-]+\.js(?:\.map)?$/;

/** dist/ is not emptied (tsc writes there too): a build removes the second parts earlier builds left there, so only the one its kagent-chat.js imports ships. */
const removeOldAnswerChunks = (): Plugin => {
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

// `vite` serves the demo page from demo/; `vite build` makes the script-tag
// build: dist/kagent-chat.js, an ES module (Lit and the element: what draws
// the chat and takes a question) that defines <kagent-chat>, and beside it
// dist/kagent-chat-answers-<hash>.js (marked, DOMPurify, the incremental
// renderer, citations, fetch-event-source and the request), which the first
// imports from its own address when first needed.
// (The npm ES modules, dependencies left external, come from tsc.)
//
// KAGENT_SINGLE_FILE=1 builds the chat as one classic script instead (an IIFE
// with everything inside and `window.KagentChat`, as before the split), for
// bench/widget-load.bench.ts to compare with; give it another --outDir.
const singleFile = process.env.KAGENT_SINGLE_FILE === '1';

export default defineConfig(({ command }) => ({
  root: here('./demo'),
  server: { host: '127.0.0.1' },
  // The demo page loads the built script-tag file; a build must not copy dist/ into itself.
  publicDir: command === 'serve' ? here('./dist') : false,
  plugins: [
    {
      name: 'kagent-minify-styles',
      apply: 'build',
      transform(code, id) {
        if (!id.endsWith('.styles.ts')) return undefined;
        return { code: code.replace(/css`([^`]*)`/g, (_, body: string) => `css\`${minifyCss(body)}\``), map: null };
      },
    },
    ...(singleFile ? [] : [removeOldAnswerChunks()]),
  ],
  build: {
    outDir: here('./dist'),
    // tsc writes the npm modules into dist/ too.
    emptyOutDir: false,
    target: 'es2022',
    sourcemap: true,
    lib: singleFile
      ? { entry: here('./src/widget/index.ts'), name: 'KagentChat', formats: ['iife'], fileName: () => 'kagent-chat.js' }
      : { entry: here('./src/widget/script-tag.ts'), formats: ['es'], fileName: () => 'kagent-chat.js' },
    rolldownOptions: {
      // Only the entry defines anything; every other module is pure, so what the widget doesn't use is dropped.
      treeshake: { moduleSideEffects: (id: string) => id.endsWith('/src/widget/index.ts') },
      // Minified whitespace too: library mode would leave it for a bundler, but nothing bundles this file again.
      output: { chunkFileNames: 'kagent-chat-answers-[hash].js', minify: true },
    },
  },
}));
