import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** Squeezes the whitespace out of Lit `css` templates, which minifiers leave as written. */
const minifyCss = (css: string) =>
  css
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\s+/g, ' ')
    .replace(/\s*([{}:;,>])\s*/g, '$1')
    .replace(/;}/g, '}')
    .trim();

// `vite` serves the demo page from demo/; `vite build` makes the script-tag
// file dist/kagent-chat.js: one IIFE with Lit, marked, DOMPurify and
// fetch-event-source inside, that defines <kagent-chat> when loaded.
// (The npm ES modules, dependencies left external, come from tsc.)
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
  ],
  build: {
    outDir: here('./dist'),
    // tsc writes the npm modules into dist/ too.
    emptyOutDir: false,
    target: 'es2022',
    sourcemap: true,
    lib: {
      entry: here('./src/widget/index.ts'),
      name: 'KagentChat',
      formats: ['iife'],
      fileName: () => 'kagent-chat.js',
    },
    rolldownOptions: {
      // Only the entry defines anything; every other module is pure, so what the widget doesn't use is dropped.
      treeshake: { moduleSideEffects: (id: string) => id.endsWith('/src/widget/index.ts') },
    },
  },
}));
