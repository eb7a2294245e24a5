import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { minify } from 'terser';
import { defineConfig, type Plugin } from 'vite';

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

/**
 * Squeezes the indentation out of Lit `html` and `svg` templates, which minifiers leave as written:
 * a run of white space that spans lines becomes one space (HTML shows either as one space, so
 * nothing drawn changes), and a comment held in one stretch of static text goes.
 */
const squeezeTemplates = (): Plugin => ({
  name: 'kagent-squeeze-templates',
  apply: 'build',
  transform(code, id) {
    if (!/\/src\/widget\/[^/]+\.ts$/.test(id) || !/\b(html|svg)`/.test(code)) return undefined;
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
 * marked's module ends by making a default instance (`marked`, `parse`, `use`, ...) at load time:
 * `new Marked()` and properties set on a function, which no bundler may drop as unused. The chat
 * uses marked's Lexer, Parser and Renderer only, so the build cuts that tail (and its exports) from
 * the module; the Marked class and its extension and hook machinery then go as unused. Nothing
 * else in marked changes. Should a release of marked no longer end that way, the build fails here.
 */
const markedWithoutDefaultInstance = (): Plugin => ({
  name: 'kagent-marked-without-default-instance',
  apply: 'build',
  transform(code, id) {
    if (!/\/node_modules\/marked\/lib\/marked\.esm\.js$/.test(id)) return undefined;
    type Node = { type: string; start: number; end: number; [key: string]: unknown };
    const body = (this.parse(code) as unknown as { body: Node[] }).body;
    const exported = body.find((node) => node.type === 'ExportNamedDeclaration' && !node.source && !node.declaration);
    const specifiers = (exported?.specifiers ?? []) as { local: { name: string }; exported: { name: string } }[];
    const markedClass = specifiers.find((specifier) => specifier.exported.name === 'Marked')?.local.name;
    const cut = body.findIndex((node) => {
      const init = node.type === 'VariableDeclaration' ? ((node.declarations as { init?: Node }[])[0]?.init as { type: string; callee?: { name?: string } } | undefined) : undefined;
      return init?.type === 'NewExpression' && init.callee?.name === markedClass;
    });
    if (!exported || body.indexOf(exported) !== body.length - 1 || !markedClass || cut < 0) {
      this.error('marked no longer ends with its default instance and one export list: see markedWithoutDefaultInstance in vite.config.ts');
    }
    // The names the cut statements declare go from the export list; the chat imports none of them (else the build fails).
    const dropped = new Set(body.slice(cut, -1).flatMap((node) => (node.type === 'FunctionDeclaration' ? [(node.id as { name: string }).name] : node.type === 'VariableDeclaration' ? (node.declarations as { id: { name: string } }[]).map((declaration) => declaration.id.name) : [])));
    const kept = specifiers.filter((specifier) => !dropped.has(specifier.local.name)).map((specifier) => `${specifier.local.name} as ${specifier.exported.name}`);
    return { code: `${code.slice(0, body[cut]!.start)}export{${kept.join(',')}};\n`, map: null };
  },
});

/**
 * marked builds its rule sets at load time: for GitHub-flavoured markdown, for plain CommonMark,
 * and for its `pedantic` (original markdown.pl) and `breaks` modes, in two tables (block and inline
 * rules by mode) that no bundler may drop, since building them calls functions. The chat renders with
 * `gfm` on and `pedantic` and `breaks` off (src/widget/markdown/incremental-markdown.ts), so marked
 * never reads those two modes' sets: the build takes them out of the tables and builds them no more.
 * Nothing else in marked changes. Should the tables no longer be found, the build fails here.
 */
const markedWithoutUnusedModes = (): Plugin => ({
  name: 'kagent-marked-without-unused-modes',
  apply: 'build',
  transform(code, id) {
    if (!/\/node_modules\/marked\/lib\/marked\.esm\.js$/.test(id)) return undefined;
    type Node = { type: string; start: number; end: number; [key: string]: any };
    const keyOf = (property: Node) => (property.type === 'Property' && property.key.type === 'Identifier' ? (property.key.name as string) : undefined);
    const tables: Node[] = [];
    const declarators = new Map<string, Node>();
    const visit = (node: unknown): void => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) return node.forEach(visit);
      const n = node as Node;
      if (n.type === 'VariableDeclarator' && n.id?.type === 'Identifier' && n.init) declarators.set(n.id.name, n);
      if (n.type === 'ObjectExpression') {
        const keys = (n.properties as Node[]).map(keyOf).join(',');
        if (keys === 'normal,gfm,pedantic' || keys === 'normal,gfm,breaks,pedantic') tables.push(n);
      }
      for (const value of Object.values(n)) if (value && typeof value === 'object') visit(value);
    };
    visit(this.parse(code));
    const unused = tables.flatMap((table) => (table.properties as Node[]).filter((property) => keyOf(property) === 'pedantic' || keyOf(property) === 'breaks'));
    const sets = unused.map((property) => (property.value.type === 'Identifier' ? declarators.get(property.value.name) : undefined));
    if (tables.length !== 2 || sets.some((set) => !set)) this.error('marked no longer builds its rule sets in two tables by mode: see markedWithoutUnusedModes in vite.config.ts');
    const edits = [
      // `,pedantic:x` out of its table (never the first property).
      ...unused.map((property) => ({ start: code.lastIndexOf(',', property.start), end: property.end, text: '' })),
      ...sets.map((set) => ({ start: set!.init.start, end: set!.init.end, text: 'null' })),
    ];
    let out = code;
    for (const { start, end, text } of edits.sort((a, b) => b.start - a.start)) out = out.slice(0, start) + text + out.slice(end);
    return { code: out, map: null };
  },
});

/**
 * A library built with Babel can carry helpers it never calls whose prototype is filled in at load
 * time (`F.prototype.next = function () {...}`): no bundler drops such writes, so the unused
 * function stays. DOMPurify 3.4's module holds one (`AsyncGenerator`, about 0.3 KB gzipped). In the
 * modules named here, a top-level function that nothing else names, and the statements that only
 * set its properties to functions or plain values, are removed; the bundler then drops what they
 * alone used. Anything else, or a function named elsewhere, is left as it is.
 */
const dropUnusedPrototypeHelpers = (modules: RegExp): Plugin => ({
  name: 'kagent-drop-unused-prototype-helpers',
  apply: 'build',
  transform(code, id) {
    if (!modules.test(id)) return undefined;
    type Node = { type: string; start: number; end: number; [key: string]: any };
    const body = (this.parse(code) as unknown as { body: Node[] }).body;
    const rootName = (node: Node): string | undefined => {
      while (node.type === 'MemberExpression') node = node.object;
      return node.type === 'Identifier' ? node.name : undefined;
    };
    const plainValue = (node: Node): boolean => ['FunctionExpression', 'ArrowFunctionExpression', 'Literal'].includes(node.type);
    /** The function whose properties this statement only sets, if that is all it does. */
    const onlySetsPropertiesOf = (node: Node): string | undefined => {
      if (node.type !== 'ExpressionStatement') return undefined;
      const parts: Node[] = node.expression.type === 'SequenceExpression' ? node.expression.expressions : [node.expression];
      const roots = new Set(parts.map((part) => (part.type === 'AssignmentExpression' && part.operator === '=' && part.left.type === 'MemberExpression' && plainValue(part.right) ? rootName(part.left) : '')));
      const [root] = roots;
      return roots.size === 1 && root ? root : undefined;
    };
    const cuts: Node[] = [];
    for (const declaration of body.filter((node) => node.type === 'FunctionDeclaration' && node.id)) {
      const name: string = declaration.id.name;
      const statements = [declaration, ...body.filter((node) => onlySetsPropertiesOf(node) === name)];
      if (statements.length === 1) continue;
      let rest = code;
      for (const node of [...statements].sort((a, b) => b.start - a.start)) rest = rest.slice(0, node.start) + rest.slice(node.end);
      // Any other mention (even in a string or a comment) keeps it.
      if (new RegExp(`(?<![\\w$])${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(rest)) continue;
      cuts.push(...statements);
    }
    if (!cuts.length) return undefined;
    let out = code;
    // Blanked, not cut, so every other line and column stays where the library's source map says.
    for (const { start, end } of cuts) out = out.slice(0, start) + code.slice(start, end).replace(/[^\n]/g, ' ') + out.slice(end);
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
        format: { comments: false },
        sourceMap: { content: map, asObject: true },
      });
      const name = chunk.fileName.split('/').pop()!;
      writeFileSync(file, `${result.code}\n//# sourceMappingURL=${name}.map\n`);
      writeFileSync(`${file}.map`, JSON.stringify({ ...(result.map as object), file: name }));
    }
  },
});

/**
 * fetch-event-source 2.0 is compiled for ES2017 (tsc's ES5-style helpers): `fetchEventSource` takes its
 * options apart with a `__rest` helper and copies objects with `Object.assign` chains. The build
 * writes them as the object rest and spread they stand for (the browsers the chat targets have
 * both); nothing else in the module changes. Should a release no longer have them, the build fails here.
 */
const fetchEventSourceWithoutHelpers = (): Plugin => ({
  name: 'kagent-fetch-event-source-without-helpers',
  apply: 'build',
  transform(code, id) {
    if (!/\/node_modules\/@microsoft\/fetch-event-source\/lib\/esm\/fetch\.js$/.test(id)) return undefined;
    const helper = /^var __rest = [\s\S]*?\r?\n};\r?\n/.exec(code);
    const rest = /\} = _a, rest = __rest\(_a, \[[^\]]*\]\);/.exec(code);
    if (!helper || !rest) this.error('fetch-event-source no longer takes its options apart with __rest: see fetchEventSourceWithoutHelpers in vite.config.ts');
    // The helper is blanked, not cut, so the lines below it stay where the library's source map says.
    let out = code.replace(helper[0], helper[0].replace(/[^\r\n]/g, ' ')).replace(rest[0], ', ...rest } = _a;');
    // Object.assign(Object.assign({}, a), b) and Object.assign({}, a): spreads.
    out = out.replace(/Object\.assign\(Object\.assign\(\{\}, ([\w.]+)\), \{/g, '({ ...$1, ').replace(/Object\.assign\(\{\}, ([\w.]+)\)/g, '{ ...$1 }');
    return { code: out, map: null };
  },
});

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
    markedWithoutDefaultInstance(),
    markedWithoutUnusedModes(),
    fetchEventSourceWithoutHelpers(),
    dropUnusedPrototypeHelpers(/\/node_modules\/dompurify\/dist\/purify\.es\.mjs$/),
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
      // Minified whitespace too: library mode would leave it for a bundler, but nothing bundles this file again
      // (so the `@__PURE__` notes meant for a bundler go as well).
      output: { chunkFileNames: 'kagent-chat-answers-[hash].js', minify: true, comments: { annotation: false } },
    },
  },
}));
