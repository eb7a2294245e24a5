// The script-tag build's trims of library code it bundles (vite.config.ts uses them): each cuts
// what a library builds at load time or carries but the chat never runs, which no bundler may
// drop as unused. The libraries' releases are unchanged; each trim fails the build when a
// release no longer has the shape it expects, rather than letting the code through untrimmed.
import type { Plugin } from 'vite';

/**
 * marked's module ends by making a default instance (`marked`, `parse`, `use`, ...) at load time:
 * `new Marked()` and properties set on a function, which no bundler may drop as unused. The chat
 * uses marked's Lexer, Parser and Renderer only, so the build cuts that tail (and its exports) from
 * the module; the Marked class and its extension and hook machinery then go as unused. Nothing
 * else in marked changes. Should a release of marked no longer end that way, the build fails here.
 */
export const markedWithoutDefaultInstance = (): Plugin => ({
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
      this.error('marked no longer ends with its default instance and one export list: see markedWithoutDefaultInstance in scripts/trim-libraries.ts');
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
 * `gfm` on and `pedantic` and `breaks` off (src/widget/answer-engine/markdown/incremental-markdown.ts), so marked
 * never reads those two modes' sets: the build takes them out of the tables and builds them no more.
 * Nothing else in marked changes. Should the tables no longer be found, the build fails here.
 */
export const markedWithoutUnusedModes = (): Plugin => ({
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
    if (tables.length !== 2 || sets.some((set) => !set)) this.error('marked no longer builds its rule sets in two tables by mode: see markedWithoutUnusedModes in scripts/trim-libraries.ts');
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
export const dropUnusedPrototypeHelpers = (modules: RegExp): Plugin => ({
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
 * DOMPurify builds its default allow-lists at load time from long lists of HTML, SVG and MathML tag and
 * attribute names (`DEFAULT_ALLOWED_TAGS`, `DEFAULT_ALLOWED_ATTR`), which its `USE_PROFILES` option
 * also reads. The chat always sets its own `ALLOWED_TAGS` and `ALLOWED_ATTR` and no profile
 * (src/widget/answer-engine/markdown/sanitize.ts), so DOMPurify never reads those defaults: the build empties them, and
 * empties each list that nothing else reads (the HTML tag list, the SVG, MathML and XML attribute lists; a
 * list whose name appears anywhere else, even as another scope's variable, is kept). The lists its
 * namespace checks read (SVG and MathML tag names, which guard against mutation XSS) are kept, untouched.
 * This can only take allowances away: a config that leaned on the defaults would allow no element and
 * no attribute, so the trim fails closed. Should the lists no longer be found so, the build fails here.
 */
export const dompurifyWithoutDefaultAllowLists = (): Plugin => ({
  name: 'kagent-dompurify-without-default-allow-lists',
  apply: 'build',
  transform(code, id) {
    if (!/\/node_modules\/dompurify\/dist\/purify\.es\.mjs$/.test(id)) return undefined;
    type Node = { type: string; start: number; end: number; [key: string]: any };
    const defaults = new Map<string, Node>();
    const profiles: Node[] = [];
    const mentions = new Map<string, Node[]>();
    const declarations = new Map<string, Node>();
    const visit = (node: unknown, parent?: Node): void => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) return node.forEach((child) => visit(child, parent));
      const n = node as Node;
      if (n.type === 'VariableDeclarator' && n.id?.type === 'Identifier') {
        const name: string = n.id.name;
        if (/^DEFAULT_ALLOWED_(TAGS|ATTR)$/.test(name)) defaults.set(name, n);
        if (n.init?.type === 'CallExpression' && n.init.arguments[0]?.type === 'ArrayExpression') declarations.set(name, n);
        visit(n.init, n);
        return;
      }
      if (n.type === 'IfStatement' && n.test.type === 'Identifier' && n.test.name === 'USE_PROFILES') profiles.push(n);
      // A name read as a value (not a property key after a dot or in an object literal).
      const isKey = parent && ((parent.type === 'MemberExpression' && parent.property === n && !parent.computed) || (parent.type === 'Property' && parent.key === n && !parent.computed));
      if (n.type === 'Identifier' && !isKey) mentions.set(n.name, [...(mentions.get(n.name) ?? []), n]);
      for (const value of Object.values(n)) if (value && typeof value === 'object') visit(value, n);
    };
    visit(this.parse(code));
    // DEFAULT_ALLOWED_X = addToSet({}, [...list, ...list]): the lists it is made of, then its array.
    const arrays = [...defaults.values()].map((declarator) => declarator.init?.arguments?.[1] as Node | undefined);
    const spread = arrays.flatMap((array) => (array?.type === 'ArrayExpression' ? (array.elements as Node[]) : []));
    if (defaults.size !== 2 || arrays.some((array) => array?.type !== 'ArrayExpression') || spread.some((element) => element.type !== 'SpreadElement' || element.argument.type !== 'Identifier') || profiles.length !== 1) {
      this.error('DOMPurify no longer builds its default allow-lists as addToSet({}, [...lists]): see dompurifyWithoutDefaultAllowLists in scripts/trim-libraries.ts');
    }
    const inside = (node: Node, outer: Node) => node.start >= outer.start && node.end <= outer.end;
    const readElsewhere = (name: string) => (mentions.get(name) ?? []).some((mention) => !arrays.some((array) => inside(mention, array!)) && !inside(mention, profiles[0]!));
    const emptied = [...new Set(spread.map((element) => element.argument.name as string))].filter((name) => declarations.has(name) && !readElsewhere(name));
    if (!emptied.length) this.error('DOMPurify no longer has default allow-lists that only the defaults read: see dompurifyWithoutDefaultAllowLists in scripts/trim-libraries.ts');
    const edits = [...arrays.map((array) => array!), ...emptied.map((name) => declarations.get(name)!.init.arguments[0] as Node)];
    let out = code;
    for (const { start, end } of edits.sort((a, b) => b.start - a.start)) out = `${out.slice(0, start)}[]${out.slice(end)}`;
    return { code: out, map: null };
  },
});
