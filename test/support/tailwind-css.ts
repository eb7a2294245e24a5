// `GET /frameworks/tailwind.css`: Tailwind 4's own CSS for the classes the
// framework pages use, made by its compiler as its CLI would make it (the
// package ships no prebuilt utilities: they exist only once a build has seen
// a class name in the site's files). The candidates are every word of the
// test file that builds those pages, as Tailwind's scanner reads a source file.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { compile } from 'tailwindcss';
import { koaMiddleware } from './koa-adapter.js';

const require = createRequire(import.meta.url);
const PAGES_FILE = new URL('../browser/widget-frameworks.test.ts', import.meta.url);

async function tailwindCss(): Promise<string> {
  const compiler = await compile('@import "tailwindcss";', {
    base: process.cwd(),
    async loadStylesheet(id: string, base: string) {
      const path = require.resolve(id === 'tailwindcss' ? 'tailwindcss/index.css' : id, { paths: [base] });
      return { path, base, content: await readFile(path, 'utf8') };
    },
  });
  const source = await readFile(PAGES_FILE, 'utf8');
  return compiler.build([...new Set(source.split(/[\s"'`<>=]+/).filter(Boolean))]);
}

export function tailwindMiddleware() {
  let css: Promise<string> | undefined;
  return koaMiddleware('/frameworks/tailwind.css', async () => {
    css ??= tailwindCss();
    return new Response(await css, { headers: { 'Content-Type': 'text/css' } });
  });
}
