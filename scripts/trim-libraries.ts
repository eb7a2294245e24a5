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
 * (src/widget/answer-engine/markdown/dompurify-sanitizer.ts), so DOMPurify never reads those defaults: the build empties them, and
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
    const visit = (node: unknown, parent?: Node, shadowed: ReadonlySet<string> = new Set()): void => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) return node.forEach((child) => visit(child, parent, shadowed));
      const n = node as Node;
      if (n.type === 'VariableDeclarator' && n.id?.type === 'Identifier') {
        const name: string = n.id.name;
        if (/^DEFAULT_ALLOWED_(TAGS|ATTR)$/.test(name)) defaults.set(name, n);
        if (n.init?.type === 'CallExpression' && n.init.arguments[0]?.type === 'ArrayExpression') declarations.set(name, n);
        visit(n.init, n, shadowed);
        return;
      }
      // A function's parameter hides a module-level name of its own name inside that function (`createHTML(html)`).
      if (/^(FunctionDeclaration|FunctionExpression|ArrowFunctionExpression)$/.test(n.type)) {
        const params = (n.params as Node[]).map((param) => (param.type === 'AssignmentPattern' ? param.left : param)).filter((param) => param.type === 'Identifier');
        shadowed = new Set([...shadowed, ...params.map((param) => param.name as string)]);
      }
      if (n.type === 'IfStatement' && n.test.type === 'Identifier' && n.test.name === 'USE_PROFILES') profiles.push(n);
      // A name read as a value (not a property key after a dot or in an object literal).
      const isKey = parent && ((parent.type === 'MemberExpression' && parent.property === n && !parent.computed) || (parent.type === 'Property' && parent.key === n && !parent.computed));
      if (n.type === 'Identifier' && !isKey && !shadowed.has(n.name)) mentions.set(n.name, [...(mentions.get(n.name) ?? []), n]);
      for (const value of Object.values(n)) if (value && typeof value === 'object') visit(value, n, shadowed);
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

type AstNode = { type: string; start: number; end: number; [key: string]: any };
type Context = { parse(code: string): unknown; error(message: string): never; getModuleInfo(id: string): { importers: readonly string[]; dynamicImporters: readonly string[] } | null };

/** Every name a module's code says (identifiers, property keys, string values), never its comments. */
function namesIn(ast: unknown): Set<string> {
  const names = new Set<string>();
  const visit = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(visit);
    const n = node as AstNode;
    if (n.type === 'Identifier' || n.type === 'PrivateIdentifier') names.add(n.name);
    if (n.type === 'Literal' && typeof n.value === 'string') names.add(n.value);
    if (n.type === 'TemplateElement') names.add(n.value.cooked ?? n.value.raw);
    for (const value of Object.values(n)) if (value && typeof value === 'object') visit(value);
  };
  visit(ast);
  return names;
}

/**
 * A trim that takes out what the chat never asks of a library, decided by what the modules that
 * import the library say: `trim` gets the library's module and returns the names it took out; at the
 * end of the build every module importing the library is checked against them, so a module that
 * names one (the chat's own, or another library's) fails the build instead of running without it.
 */
function trimUnusedOf(library: RegExp, packageName: string, name: string, trim: (context: Context, code: string, id: string) => { code: string; names: string[] }): Plugin {
  const said = new Map<string, Set<string>>();
  let libraryId: string | undefined;
  let trimmed: string[] = [];
  return {
    name: `kagent-${name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`,
    apply: 'build',
    transform(code, id) {
      const context = this as unknown as Context;
      if (!library.test(id)) {
        // An importer names the library's package in its import; one not recorded (or not JavaScript) fails the check.
        if (code.includes(packageName)) {
          try {
            said.set(id, namesIn(context.parse(code)));
          } catch {}
        }
        return undefined;
      }
      libraryId = id;
      const result = trim(context, code, id);
      trimmed = result.names;
      return { code: result.code, map: null };
    },
    buildEnd() {
      if (!libraryId) return;
      const info = (this as unknown as Context).getModuleInfo(libraryId);
      for (const importer of [...(info?.importers ?? []), ...(info?.dynamicImporters ?? [])]) {
        const names = said.get(importer);
        const named = trimmed.filter((trimmedName) => !names || names.has(trimmedName));
        if (named.length) this.error(`${importer} names ${named.join(', ')}, which the build takes out of ${packageName}: see ${name} in scripts/trim-libraries.ts`);
      }
    },
  };
}

/** Applies edits (ranges of `code` and their new text) from the last to the first. */
function edit(code: string, edits: { start: number; end: number; text: string }[]): string {
  let out = code;
  for (const { start, end, text } of [...edits].sort((a, b) => b.start - a.start)) out = out.slice(0, start) + text + out.slice(end);
  return out;
}

/**
 * marked's classes read their options as `this.options.x` at every step: `pedantic` (original
 * markdown.pl's rules) in 21 places, `extensions`, `hooks` and `silent` in the lexer's and parser's
 * loops, `gfm` and `breaks` where the lexer picks its rule sets and in its list and paragraph rules.
 * The chat gives them its own options, marked's defaults (`getDefaults()`) with only its `renderer`
 * set; every other object marked's classes read options from is those defaults too (its `defaults`
 * are set only by the default instance, which the build cuts). So the build writes those six reads
 * as the defaults' values (`pedantic`, `silent` and `breaks` false, `gfm` true, `extensions` and
 * `hooks` null; GitHub-flavoured without `breaks` are the modes whose rule sets alone
 * markedWithoutUnusedModes keeps), and the minifier drops the branches that can no longer run. It
 * fails if marked's defaults are no longer those values, if anything in marked still sets its
 * `defaults`, or if a module importing marked names one of the six.
 */
export const markedWithDefaultOptionsFolded = (): Plugin => {
  const FOLDED = { pedantic: ['!1', 'false'], silent: ['!1', 'false'], extensions: ['null'], hooks: ['null'], gfm: ['!0', 'true'], breaks: ['!1', 'false'] } as Record<string, string[]>;
  return trimUnusedOf(/\/node_modules\/marked\/lib\/marked\.esm\.js$/, 'marked', 'markedWithDefaultOptionsFolded', (context: Context, code: string) => {
    const fail = (): never => context.error('marked no longer reads its options so, or its defaults changed: see markedWithDefaultOptionsFolded in scripts/trim-libraries.ts');
    const program = context.parse(code) as unknown as { body: AstNode[] };
    const exported = program.body.find((node) => node.type === 'ExportNamedDeclaration' && !node.source);
    const local = (exportedName: string) => (exported?.specifiers as AstNode[] | undefined)?.find((specifier) => specifier.exported.name === exportedName)?.local.name as string | undefined;
    const [getDefaults, defaults] = [local('getDefaults'), local('defaults')];
    const reads: AstNode[] = [];
    const writers: string[] = [];
    let defaultValues: Record<string, string> | undefined;
    const calls: string[] = [];
    const visit = (node: unknown, within?: string): void => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) return node.forEach((child) => visit(child, within));
      const n = node as AstNode;
      if (n.type === 'FunctionDeclaration' && n.id?.name === getDefaults) {
        const returned = n.body.body[0]?.argument as AstNode | undefined;
        if (returned?.type === 'ObjectExpression') defaultValues = Object.fromEntries((returned.properties as AstNode[]).map((property) => [property.key?.name, code.slice(property.value.start, property.value.end)]));
      }
      if (n.type === 'AssignmentExpression' && n.left.type === 'Identifier' && n.left.name === defaults) writers.push(within ?? '');
      if (n.type === 'CallExpression' && n.callee.type === 'Identifier') calls.push(n.callee.name);
      if (n.type === 'MemberExpression' && !n.computed && Object.hasOwn(FOLDED, n.property.name) && n.object.type === 'MemberExpression' && !n.object.computed && n.object.object.type === 'ThisExpression' && n.object.property.name === 'options') reads.push(n);
      const name = n.type === 'FunctionDeclaration' ? (n.id?.name as string) : within;
      for (const value of Object.values(n)) if (value && typeof value === 'object') visit(value, name);
    };
    visit(program);
    // The defaults are written only by a function nothing left in the module calls (the default instance's setOptions, cut before this runs).
    if (!getDefaults || !defaults || !defaultValues || writers.some((writer) => !writer || calls.includes(writer))) fail();
    for (const [option, values] of Object.entries(FOLDED)) {
      if (!values.includes(defaultValues![option] ?? '') || !reads.some((read) => read.property.name === option)) fail();
    }
    return { code: edit(code, reads.map((read) => ({ start: read.start, end: read.end, text: `(${defaultValues![read.property.name]})` }))), names: Object.keys(FOLDED) };
  });
};

/**
 * The chat's DOMPurify is a private instance, set up once by the chat's sanitizer module with one
 * config that never changes (src/widget/answer-engine/markdown/dompurify-sanitizer.ts), and the
 * instance never leaves that module. Two kinds of code in DOMPurify cannot run for it, and no
 * bundler can drop them:
 * - the branches for the other value of options the chat's config never names, each set only by
 *   reading the config and kept at its default when the config does not name it: off unless set
 *   (`let X = false`, written only `X = cfg.X || false` or `X = objectHasOwnProperty(cfg, "X") ? ... : false`):
 *   sanitizing a node in place (`IN_PLACE`), `SAFE_FOR_TEMPLATES`, `WHOLE_DOCUMENT`, `FORCE_BODY`,
 *   `SANITIZE_NAMED_PROPS`, `RETURN_TRUSTED_TYPE`, `ALLOW_UNKNOWN_PROTOCOLS`, `USE_PROFILES`; on unless
 *   turned off (`let X = true`, written only `X = cfg.X !== false`): `SAFE_FOR_XML`, `KEEP_CONTENT`,
 *   `SANITIZE_DOM`, `ALLOW_SELF_CLOSE_IN_ATTR`. Each becomes a constant of its default (its one write
 *   gone), and the minifier drops what only ran with the other value; the checks these defaults turn
 *   on stay, now unconditional;
 * - the instance's methods the chat never calls and DOMPurify itself never names (`clearConfig`,
 *   `isValidAttribute`, `removeHook`, `removeHooks`, `removeAllHooks`);
 * - the settings derived from three more options the chat never names, each written once from the config:
 *   `PARSER_MEDIA_TYPE` (then "text/html": the XHTML parsing branches and the case-keeping of tag and
 *   attribute names go, names are always lower-cased), `NAMESPACE` (then HTML's) and `ALLOWED_URI_REGEXP`
 *   (then DOMPurify's own address rule). Each becomes a constant of that value, its write checked word for word;
 * - the options that add to what is allowed or forbidden (`ADD_TAGS`, `ADD_ATTR`, `ADD_FORBID_CONTENTS`), each
 *   read in an `if` that runs only when the config names it: the `if` goes, and with it the extra tag and
 *   attribute checks only those set (`EXTRA_ELEMENT_HANDLING`), each of its reads then false;
 * - `CUSTOM_ELEMENT_HANDLING`, which then lets no custom element or attribute through, and its tests
 *   (withoutCustomElementHandling);
 * - the reading of the set and object options the chat never names (`ALLOWED_NAMESPACES`, `ADD_URI_SAFE_ATTR`,
 *   `ADD_DATA_URI_TAGS`, `FORBID_CONTENTS`, `FORBID_TAGS`, `FORBID_ATTR`, `MATHML_TEXT_INTEGRATION_POINTS`,
 *   `HTML_INTEGRATION_POINTS`): each resolver call becomes the default it then gives (the resolvers checked word for word).
 * Every check DOMPurify makes under the chat's config stays as it is. It fails if DOMPurify no longer
 * has these options and methods so, or if a module importing DOMPurify names one of them.
 */
export const dompurifyWithoutUnusedOptionsAndMethods = (): Plugin => {
  const OFF_UNLESS_SET = ['IN_PLACE', 'SAFE_FOR_TEMPLATES', 'WHOLE_DOCUMENT', 'FORCE_BODY', 'SANITIZE_NAMED_PROPS', 'RETURN_TRUSTED_TYPE', 'ALLOW_UNKNOWN_PROTOCOLS', 'USE_PROFILES'];
  const ON_UNLESS_TURNED_OFF = ['SAFE_FOR_XML', 'KEEP_CONTENT', 'SANITIZE_DOM', 'ALLOW_SELF_CLOSE_IN_ATTR'];
  const OPTIONS = [...OFF_UNLESS_SET, ...ON_UNLESS_TURNED_OFF];
  const METHODS = ['clearConfig', 'isValidAttribute', 'removeHook', 'removeHooks', 'removeAllHooks'];
  // Settings DOMPurify derives from an option the chat never names, their one write and their value then (`given`: what makes it so).
  const FIXED: Record<string, { write: string; value: string; given: string }> = {
    PARSER_MEDIA_TYPE: { write: 'PARSER_MEDIA_TYPE = SUPPORTED_PARSER_MEDIA_TYPES.indexOf(cfg.PARSER_MEDIA_TYPE) === -1 ? DEFAULT_PARSER_MEDIA_TYPE : cfg.PARSER_MEDIA_TYPE', value: '"text/html"', given: 'const DEFAULT_PARSER_MEDIA_TYPE = "text/html";' },
    transformCaseFunc: { write: 'transformCaseFunc = PARSER_MEDIA_TYPE === "application/xhtml+xml" ? stringToString : stringToLowerCase', value: 'stringToLowerCase', given: 'const stringToLowerCase = unapply(String.prototype.toLowerCase);' },
    NAMESPACE: { write: 'NAMESPACE = typeof cfg.NAMESPACE === "string" ? cfg.NAMESPACE : HTML_NAMESPACE', value: 'HTML_NAMESPACE', given: 'let NAMESPACE = HTML_NAMESPACE;' },
    IS_ALLOWED_URI$1: { write: 'IS_ALLOWED_URI$1 = isRegex(cfg.ALLOWED_URI_REGEXP) ? cfg.ALLOWED_URI_REGEXP : IS_ALLOWED_URI', value: 'IS_ALLOWED_URI', given: 'let IS_ALLOWED_URI$1 = IS_ALLOWED_URI;' },
  };
  const FIXED_OPTIONS = ['PARSER_MEDIA_TYPE', 'NAMESPACE', 'ALLOWED_URI_REGEXP'];
  const ADDING = ['ADD_TAGS', 'ADD_ATTR', 'ADD_FORBID_CONTENTS'];
  // Options read by a resolver that gives its fallback (third argument) when the config does not name the option, word for word.
  const RESOLVERS: Record<string, string> = {
    _resolveSetOption: 'const _resolveSetOption = function _resolveSetOption(cfg, key, fallback, options) { return objectHasOwnProperty(cfg, key) && arrayIsArray(cfg[key]) ? addToSet(options.base ? cloneSet(options.base) : {}, cfg[key], options.transform) : fallback; };',
    _resolveObjectOption: 'const _resolveObjectOption = function _resolveObjectOption(cfg, key, fallback) { const value = objectHasOwnProperty(cfg, key) ? cfg[key] : void 0; return value && typeof value === "object" ? clone(value) : fallback; };',
  };
  const RESOLVED = ['ALLOWED_NAMESPACES', 'ADD_URI_SAFE_ATTR', 'ADD_DATA_URI_TAGS', 'FORBID_CONTENTS', 'FORBID_TAGS', 'FORBID_ATTR', 'MATHML_TEXT_INTEGRATION_POINTS', 'HTML_INTEGRATION_POINTS'];
  return trimUnusedOf(/\/node_modules\/dompurify\/dist\/purify\.es\.mjs$/, 'dompurify', 'dompurifyWithoutUnusedOptionsAndMethods', (context: Context, code: string) => {
    const program = context.parse(code) as unknown as { body: AstNode[] };
    const factory = program.body.find((node) => node.type === 'FunctionDeclaration' && node.id?.name === 'createDOMPurify');
    const body: AstNode[] = factory?.body.body ?? [];
    const instance = body.find((node) => node.type === 'VariableDeclaration' && node.declarations[0]?.id.name === 'DOMPurify')?.declarations[0].id.name as string | undefined;
    const writes = new Map<string, AstNode[]>();
    const visit = (node: unknown): void => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) return node.forEach(visit);
      const n = node as AstNode;
      const target = n.type === 'AssignmentExpression' ? n.left : n.type === 'UpdateExpression' ? n.argument : undefined;
      if (target?.type === 'Identifier') writes.set(target.name, [...(writes.get(target.name) ?? []), n]);
      for (const value of Object.values(n)) if (value && typeof value === 'object') visit(value);
    };
    visit(factory);
    const statementOf = (expression: AstNode | undefined) => expression && body.flatMap(function find(node: AstNode): AstNode[] {
      if (node.type === 'ExpressionStatement' && node.expression === expression) return [node];
      return Object.values(node).flatMap((value) => (Array.isArray(value) ? value : [value])).filter((child): child is AstNode => !!child && typeof child === 'object' && typeof child.type === 'string').flatMap(find);
    })[0];
    const edits: { start: number; end: number; text: string }[] = [];
    for (const option of OPTIONS) {
      const declaration = body.find((node) => node.type === 'VariableDeclaration' && node.kind === 'let' && node.declarations.length === 1 && node.declarations[0].id.name === option);
      const [write, ...more] = writes.get(option) ?? [];
      // The one write, from the config, a statement of its own.
      const statement = statementOf(write);
      const fallback = !ON_UNLESS_TURNED_OFF.includes(option);
      const value = (write?.right ?? {}) as AstNode;
      const readsOption = (node: AstNode | undefined) => node?.type === 'MemberExpression' && !node.computed && node.property.name === option;
      const isFalse = (node: AstNode | undefined) => node?.type === 'Literal' && node.value === false;
      const defaultUnlessNamed = write?.operator === '=' && (fallback
        ? (value.type === 'LogicalExpression' && value.operator === '||' && readsOption(value.left) && isFalse(value.right)) ||
          (value.type === 'ConditionalExpression' && value.test.type === 'CallExpression' && value.test.callee.name === 'objectHasOwnProperty' && value.test.arguments[1]?.value === option && isFalse(value.alternate))
        : value.type === 'BinaryExpression' && value.operator === '!==' && readsOption(value.left) && isFalse(value.right));
      if (!declaration || declaration.declarations[0].init?.value !== !fallback || more.length || !statement || !defaultUnlessNamed) {
        context.error(`DOMPurify no longer has ${option} as an option ${fallback ? 'off unless set' : 'on unless turned off'}: see dompurifyWithoutUnusedOptionsAndMethods in scripts/trim-libraries.ts`);
      }
      edits.push({ start: declaration.start, end: declaration.start + 3, text: 'const' }, { start: statement.start, end: statement.end, text: '' });
    }
    const rest = namesIn(context.parse(edit(code, body.filter((node) => METHODS.some((method) => isMethod(node, method))).map((node) => ({ start: node.start, end: node.end, text: '' })))));
    function isMethod(node: AstNode, method: string): boolean {
      const assignment = node.type === 'ExpressionStatement' ? node.expression : undefined;
      return assignment?.type === 'AssignmentExpression' && assignment.left.type === 'MemberExpression' && assignment.left.object.name === instance && assignment.left.property.name === method && assignment.right.type === 'FunctionExpression';
    }
    for (const method of METHODS) {
      const statement = body.find((node) => isMethod(node, method));
      // Any other mention of its name in the module (DOMPurify calling it itself) keeps it, and fails here.
      if (!instance || !statement || rest.has(method)) context.error(`DOMPurify no longer has ${method} as a method it never calls itself: see dompurifyWithoutUnusedOptionsAndMethods in scripts/trim-libraries.ts`);
      edits.push({ start: statement.start, end: statement.end, text: '' });
    }
    for (const [variable, { write, value, given }] of Object.entries(FIXED)) {
      const declaration = body.find((node) => node.type === 'VariableDeclaration' && node.kind === 'let' && node.declarations.length === 1 && node.declarations[0].id.name === variable);
      const [assignment, ...more] = writes.get(variable) ?? [];
      const statement = statementOf(assignment);
      // Said as expected, whitespace aside: what it is when the config does not name its option is then `value`.
      const said = statement && code.slice(statement.start, statement.end).replace(/\s+/g, ' ');
      if (!declaration || !statement || more.length || said !== `${write};` || code.split(given).length !== 2) {
        context.error(`DOMPurify no longer sets ${variable} only by \`${write}\` (with \`${given}\`): see dompurifyWithoutUnusedOptionsAndMethods in scripts/trim-libraries.ts`);
      }
      edits.push({ start: declaration.start, end: declaration.end, text: `const ${variable} = ${value};` }, { start: statement.start, end: statement.end, text: '' });
    }
    // Options that only add to what is allowed or forbidden, each read in an `if` of its own that runs only when the config names it.
    const nodes: AstNode[] = [];
    const collect = (node: unknown): void => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) return node.forEach(collect);
      const n = node as AstNode;
      if (typeof n.type === 'string') nodes.push(n);
      for (const value of Object.values(n)) if (value && typeof value === 'object') collect(value);
    };
    collect(factory);
    const namesOption = (test: AstNode, option: string): boolean => {
      const call = test.type === 'LogicalExpression' && test.operator === '&&' ? test.left : test;
      return call.type === 'CallExpression' && call.callee.name === 'objectHasOwnProperty' && call.arguments[0]?.name === 'cfg' && call.arguments[1]?.value === option;
    };
    const added: AstNode[] = [];
    for (const option of ADDING) {
      const blocks = nodes.filter((node) => node.type === 'IfStatement' && !node.alternate && namesOption(node.test, option));
      if (blocks.length !== 1) context.error(`DOMPurify no longer reads ${option} in one \`if (objectHasOwnProperty(cfg, "${option}"))\`: see dompurifyWithoutUnusedOptionsAndMethods in scripts/trim-libraries.ts`);
      added.push(blocks[0]!);
      edits.push({ start: blocks[0]!.start, end: blocks[0]!.end, text: '' });
    }
    // Only ADD_TAGS and ADD_ATTR set EXTRA_ELEMENT_HANDLING's checks to anything but null: it goes, and each `check instanceof Function && check(...)` is false.
    const extra = 'EXTRA_ELEMENT_HANDLING';
    const isExtraCheck = (node: AstNode | undefined) => node?.type === 'MemberExpression' && !node.computed && node.object.type === 'Identifier' && node.object.name === extra;
    const mentions = nodes.filter((node) => node.type === 'Identifier' && node.name === extra && !added.some((block) => node.start >= block.start && node.end <= block.end));
    const declaration = body.find((node) => node.type === 'VariableDeclaration' && node.declarations.length === 1 && node.declarations[0].id.name === extra);
    // `EXTRA_ELEMENT_HANDLING.x = null;`, statements of a function's body (the factory's own among them).
    const statements = nodes.flatMap((node) => (node.type === 'FunctionExpression' || node.type === 'FunctionDeclaration' ? (node.body.body as AstNode[]) : []));
    const resets = statements.filter((node) => node.type === 'ExpressionStatement' && node.expression.type === 'AssignmentExpression' && isExtraCheck(node.expression.left) && node.expression.right.type === 'Literal' && node.expression.right.value === null);
    const checks = nodes.filter((node) => node.type === 'LogicalExpression' && node.operator === '&&' && node.left.type === 'BinaryExpression' && node.left.operator === 'instanceof' && isExtraCheck(node.left.left) && node.left.right.name === 'Function' && node.right.type === 'CallExpression' && isExtraCheck(node.right.callee) && node.right.callee.property.name === node.left.left.property.name);
    const accounted = [declaration, ...resets, ...checks].filter((node): node is AstNode => !!node);
    if (!declaration || mentions.some((mention) => !accounted.some((node) => mention.start >= node.start && mention.end <= node.end))) {
      context.error(`DOMPurify no longer sets ${extra} only from ADD_TAGS and ADD_ATTR: see dompurifyWithoutUnusedOptionsAndMethods in scripts/trim-libraries.ts`);
    }
    edits.push(...[declaration!, ...resets].map((node) => ({ start: node.start, end: node.end, text: '' })), ...checks.map((node) => ({ start: node.start, end: node.end, text: 'false' })));
    // Set and object options read through DOMPurify's two resolvers, which give the fallback when the config does not name the option.
    for (const [resolver, said] of Object.entries(RESOLVERS)) {
      const declared = program.body.find((node) => node.type === 'VariableDeclaration' && node.declarations[0]?.id.name === resolver);
      if (!declared || code.slice(declared.start, declared.end).replace(/\s+/g, ' ') !== said) context.error(`DOMPurify's ${resolver} is no longer \`${said}\`: see dompurifyWithoutUnusedOptionsAndMethods in scripts/trim-libraries.ts`);
    }
    for (const option of RESOLVED) {
      const calls = nodes.filter((node) => node.type === 'CallExpression' && node.callee.type === 'Identifier' && Object.hasOwn(RESOLVERS, node.callee.name) && node.arguments[1]?.value === option);
      const [call] = calls;
      if (!call || calls.length !== 1 || call.arguments[0].name !== 'cfg' || !call.arguments[2]) context.error(`DOMPurify no longer reads ${option} once through its resolvers: see dompurifyWithoutUnusedOptionsAndMethods in scripts/trim-libraries.ts`);
      edits.push({ start: call.start, end: call.end, text: code.slice(call.arguments[2].start, call.arguments[2].end) });
    }
    edits.push(...withoutCustomElementHandling(context, nodes, statements));
    return { code: edit(code, edits), names: [...OPTIONS, ...METHODS, ...FIXED_OPTIONS, ...ADDING, ...RESOLVED, 'CUSTOM_ELEMENT_HANDLING'] };
  });
};

/**
 * DOMPurify's CUSTOM_ELEMENT_HANDLING, which the chat's config never names: read into an empty object, it
 * lets no custom element and no attribute through. Its reading goes from the config's, and each test of it
 * (`... && _matchesNameCheck(CUSTOM_ELEMENT_HANDLING.x, ...)`, `... && CUSTOM_ELEMENT_HANDLING.x`, and
 * what they make with `&&` and `||` of reads that do nothing else) becomes false: an `if` that returns on it
 * goes, a `return` of it returns false. Every mention of it must be among those, or the build fails.
 */
function withoutCustomElementHandling(context: Context, nodes: AstNode[], statements: AstNode[]): { start: number; end: number; text: string }[] {
  const HANDLING = 'CUSTOM_ELEMENT_HANDLING';
  const fail = (): never => context.error(`DOMPurify no longer reads and tests ${HANDLING} as expected: see dompurifyWithoutUnusedOptionsAndMethods in scripts/trim-libraries.ts`);
  const named = (node: AstNode | undefined, name: string) => node?.type === 'Identifier' && node.name === name;
  const isRead = (node: AstNode | undefined) => node?.type === 'MemberExpression' && !node.computed && named(node.object, HANDLING);
  const quiet = (node: AstNode): boolean =>
    node.type === 'Identifier' || node.type === 'Literal' ||
    (node.type === 'MemberExpression' && quiet(node.object) && (!node.computed || quiet(node.property))) ||
    (node.type === 'UnaryExpression' && node.operator === '!' && quiet(node.argument)) ||
    ((node.type === 'LogicalExpression' || (node.type === 'BinaryExpression' && ['===', '!=='].includes(node.operator))) && quiet(node.left) && quiet(node.right)) ||
    (node.type === 'CallExpression' && named(node.callee, '_isBasicCustomElement') && (node.arguments as AstNode[]).every(quiet));
  const alwaysFalse = (node: AstNode): boolean =>
    isRead(node) ||
    (node.type === 'CallExpression' && named(node.callee, '_matchesNameCheck') && isRead(node.arguments[0]) && (node.arguments as AstNode[]).every(quiet)) ||
    (node.type === 'LogicalExpression' && node.operator === '||' && alwaysFalse(node.left) && alwaysFalse(node.right)) ||
    (node.type === 'LogicalExpression' && node.operator === '&&' && (alwaysFalse(node.left) || (quiet(node.left) && alwaysFalse(node.right))));
  const edits: { start: number; end: number; text: string }[] = [];
  const covered: AstNode[] = [];
  const drop = (node: AstNode) => {
    covered.push(node);
    edits.push({ start: node.start, end: node.end, text: '' });
  };
  for (const statement of statements) {
    const declared = statement.type === 'VariableDeclaration' && statement.declarations.length === 1 ? statement.declarations[0] : undefined;
    const expression = statement.type === 'ExpressionStatement' ? statement.expression : undefined;
    // `let CUSTOM_ELEMENT_HANDLING = null;`, its default, and in the config's reading: the option read, the object made, filled from it and sealed.
    if (declared && ((named(declared.id, HANDLING) && declared.init?.value === null) || named(declared.id, `DEFAULT_${HANDLING}`))) drop(statement);
    else if (declared && named(declared.id, 'customElementHandling') && declared.init?.type === 'CallExpression' && declared.init.arguments[1]?.value === HANDLING) drop(statement);
    else if (expression?.type === 'AssignmentExpression' && named(expression.left, HANDLING)) drop(statement);
    else if (expression?.type === 'CallExpression' && named(expression.callee, 'seal') && named(expression.arguments[0], HANDLING)) drop(statement);
    else if (statement.type === 'IfStatement' && !statement.alternate && statement.consequent.type === 'ExpressionStatement' && statement.consequent.expression.type === 'AssignmentExpression' && isRead(statement.consequent.expression.left)) drop(statement);
    // Its tests: an `if` that would return on one, a `return` of one.
    else if (statement.type === 'IfStatement' && !statement.alternate && statement.consequent.type === 'ReturnStatement' && alwaysFalse(statement.test)) drop(statement);
    else if (statement.type === 'IfStatement' && statement.consequent.type === 'ReturnStatement' && statement.consequent.argument && alwaysFalse(statement.consequent.argument)) {
      covered.push(statement.consequent.argument);
      edits.push({ start: statement.consequent.argument.start, end: statement.consequent.argument.end, text: 'false' });
    }
  }
  const mentions = nodes.filter((node) => named(node, HANDLING) || named(node, 'customElementHandling') || named(node, `DEFAULT_${HANDLING}`));
  if (!covered.length || mentions.some((mention) => !covered.some((node) => mention.start >= node.start && mention.end <= node.end))) fail();
  return edits;
}

/**
 * DOMPurify's module is compiled by Babel, which writes `for (const [key, value] of entries(object))`
 * as `_slicedToArray(item, 2)` and carries the helpers that turn any iterable into an array (about
 * 0.45 KB gzipped). Each such call takes an item of `Object.entries()`, which is always an array,
 * and `_slicedToArray` gives an array back as it is: the build writes the call as the item itself,
 * and the helpers go as unused. Should a call take anything else, or none be found, the build fails.
 */
export const dompurifyEntriesWithoutBabelDestructuring = (): Plugin => ({
  name: 'kagent-dompurify-entries-without-babel-destructuring',
  apply: 'build',
  transform(code, id) {
    if (!/\/node_modules\/dompurify\/dist\/purify\.es\.mjs$/.test(id)) return undefined;
    const program = this.parse(code) as unknown as { body: AstNode[] };
    // `const entries = Object.entries` at the module's top level, never written again.
    const entries = program.body.flatMap((node) => (node.type === 'VariableDeclaration' && node.kind === 'const' ? (node.declarations as AstNode[]) : []))
      .filter((declarator) => declarator.init?.type === 'MemberExpression' && declarator.init.object.name === 'Object' && declarator.init.property.name === 'entries')
      .map((declarator) => declarator.id.name as string);
    const calls: { call: AstNode; loops: AstNode[] }[] = [];
    const visit = (node: unknown, loops: AstNode[]): void => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) return node.forEach((child) => visit(child, loops));
      const n = node as AstNode;
      if (n.type === 'CallExpression' && n.callee.type === 'Identifier' && n.callee.name === '_slicedToArray') calls.push({ call: n, loops });
      const inner = n.type === 'ForOfStatement' ? [...loops, n] : loops;
      for (const value of Object.values(n)) if (value && typeof value === 'object') visit(value, inner);
    };
    visit(program, []);
    // The item of a `for (const item of entries(...))` loop around the call.
    const overEntries = ({ call, loops }: { call: AstNode; loops: AstNode[] }) => {
      const item = call.arguments[0];
      return item?.type === 'Identifier' && loops.some((loop) => loop.left.type === 'VariableDeclaration' && loop.left.kind === 'const' && loop.left.declarations[0].id.name === item.name && loop.right.type === 'CallExpression' && entries.includes(loop.right.callee.name));
    };
    if (!calls.length || !calls.every(overEntries)) this.error("DOMPurify no longer destructures only Object.entries() items with Babel's _slicedToArray: see dompurifyEntriesWithoutBabelDestructuring in scripts/trim-libraries.ts");
    return { code: edit(code, calls.map(({ call }) => ({ start: call.start, end: call.end, text: call.arguments[0].name }))), map: null };
  },
});

/**
 * DOMPurify's module makes its constants at load time through its own helpers: `freeze([...])` and
 * `seal(/.../)` (Object.freeze and Object.seal, or a function that gives its argument back where they
 * are missing), `unapply(X.prototype.method)` and `unconstruct(X)` (each only makes a function). No
 * bundler may drop a call it knows nothing of, so a constant that only the options trimmed above read
 * (the template patterns of SAFE_FOR_TEMPLATES, the doctype pattern of WHOLE_DOCUMENT, the emptied
 * lists, the array helpers of the removed methods) stays as a bare call. The build marks those calls
 * pure where their arguments are literals, lists of literals, `X.prototype.y` or a name, so the
 * minifier drops each whose constant nothing reads; one that is read stays as it is. It fails if the
 * helpers are no longer defined so, or if no constant is made so.
 */
export const dompurifyConstantsMarkedPure = (): Plugin => ({
  name: 'kagent-dompurify-constants-marked-pure',
  apply: 'build',
  transform(code, id) {
    if (!/\/node_modules\/dompurify\/dist\/purify\.es\.mjs$/.test(id)) return undefined;
    const fail = (): never => this.error('DOMPurify no longer makes its constants with its own freeze, seal, unapply and unconstruct: see dompurifyConstantsMarkedPure in scripts/trim-libraries.ts');
    const program = this.parse(code) as unknown as { body: AstNode[] };
    // freeze and seal: Object's, else a function giving its argument back, and written nowhere else.
    for (const helper of ['freeze', 'seal']) {
      const fallback = `if (!${helper}) ${helper} = function ${helper}(x) {\n\treturn x;\n};`;
      if (code.split(`let ${helper} = Object.${helper};`).length !== 2 || code.split(fallback).length !== 2 || code.split(new RegExp(`(?<![\\w$.])${helper} = `)).length !== 3) fail();
    }
    // unapply and unconstruct: a function that returns a function, calling nothing itself.
    for (const helper of ['unapply', 'unconstruct']) {
      const declaration = program.body.find((node) => node.type === 'FunctionDeclaration' && node.id?.name === helper);
      const [statement, ...more] = declaration?.body.body ?? [];
      if (more.length || statement?.type !== 'ReturnStatement' || statement.argument?.type !== 'FunctionExpression') fail();
    }
    const plain = (node: AstNode): boolean =>
      node.type === 'Literal' ||
      node.type === 'Identifier' ||
      (node.type === 'ArrayExpression' && (node.elements as AstNode[]).every((element) => element?.type === 'Literal')) ||
      (node.type === 'MemberExpression' && !node.computed && node.object.type === 'MemberExpression' && !node.object.computed && node.object.object.type === 'Identifier' && node.object.property.name === 'prototype');
    const calls = program.body
      .flatMap((node) => (node.type === 'VariableDeclaration' && node.kind === 'const' ? (node.declarations as AstNode[]) : []))
      .map((declarator) => declarator.init as AstNode | undefined)
      .filter((init): init is AstNode => init?.type === 'CallExpression' && init.callee.type === 'Identifier' && ['freeze', 'seal', 'unapply', 'unconstruct'].includes(init.callee.name) && (init.arguments as AstNode[]).length === 1 && plain(init.arguments[0]));
    if (!calls.length) fail();
    // (A read of `X.prototype.y` is kept by the minifier even as a pure call's argument: inside a pure function called with none, it goes with the call.)
    return { code: edit(code, calls.flatMap((call) => (call.arguments[0].type === 'MemberExpression' ? [{ start: call.start, end: call.start, text: '/* @__PURE__ */ (() => ' }, { start: call.end, end: call.end, text: ')()' }] : [{ start: call.start, end: call.start, text: '/* @__PURE__ */ ' }]))), map: null };
  },
});

/**
 * marked builds a table of the patterns its rules share (`other`: `codeRemoveIndent`, `listIsTask`...) at
 * load time, an object literal no bundler may take apart. Some are read only where `pedantic` is on, which
 * markedWithDefaultOptionsFolded has made `(!1)`, and one nowhere. The build takes out of the table each
 * pattern nothing reads outside a branch that can no longer run (`(!1) && ...`, `(!1) ? ... :`,
 * `if ((!1))`). It fails if the table is no longer read only by name (`other.x`, never `other[x]`), if
 * no pattern is left unread, or if a module importing marked names a pattern it took out.
 */
export const markedWithoutUnreadPatterns = (): Plugin =>
  trimUnusedOf(/\/node_modules\/marked\/lib\/marked\.esm\.js$/, 'marked', 'markedWithoutUnreadPatterns', (context: Context, code: string) => {
    const fail = (): never => context.error("marked no longer keeps its shared patterns in one table read by name: see markedWithoutUnreadPatterns in scripts/trim-libraries.ts");
    const program = context.parse(code);
    const unwrap = (node: AstNode): AstNode => (node.type === 'ParenthesizedExpression' ? unwrap(node.expression) : node);
    // What a condition is once the folded options are values: true, false, or not known.
    const value = (node: AstNode): boolean | undefined => {
      const n = unwrap(node);
      if (n.type === 'UnaryExpression' && n.operator === '!') {
        if (n.argument.type === 'Literal' && typeof n.argument.value === 'number') return !n.argument.value;
        const inner = value(n.argument);
        return inner === undefined ? undefined : !inner;
      }
      if (n.type === 'LogicalExpression' && (n.operator === '&&' || n.operator === '||')) {
        const [left, right] = [value(n.left), value(n.right)];
        if (n.operator === '&&') return left === false || right === false ? false : left && right ? true : undefined;
        return left === true || right === true ? true : left === false && right === false ? false : undefined;
      }
      return undefined;
    };
    let table: AstNode | undefined;
    const tableNames = new Set<string>();
    const live = new Set<string>();
    const mentions: { node: AstNode; parent?: AstNode }[] = [];
    const computedOnTable: AstNode[] = [];
    const visit = (node: unknown, parent?: AstNode): void => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) return node.forEach((child) => visit(child, parent));
      const n = node as AstNode;
      if (n.type === 'Property' && !n.computed && n.key.name === 'other' && n.value.type === 'Identifier') tableNames.add(n.value.name);
      if (n.type === 'Identifier') mentions.push({ node: n, parent });
      if (n.type === 'MemberExpression' && !n.computed && n.property.type === 'Identifier') live.add(n.property.name);
      if (n.type === 'MemberExpression' && n.computed && ((n.object.type === 'MemberExpression' && !n.object.computed && n.object.property.name === 'other') || n.object.type === 'Identifier')) computedOnTable.push(n);
      // The branches that can no longer run are not visited.
      const test = n.type === 'IfStatement' || n.type === 'ConditionalExpression' ? value(n.test) : undefined;
      if (test !== undefined) {
        visit(n.test, n);
        visit(test ? n.consequent : n.alternate, n);
        return;
      }
      if (n.type === 'LogicalExpression' && (n.operator === '&&' || n.operator === '||')) {
        const left = value(n.left);
        visit(n.left, n);
        if (left !== (n.operator === '||')) visit(n.right, n);
        return;
      }
      for (const child of Object.values(n)) if (child && typeof child === 'object') visit(child, n);
    };
    visit(program);
    const [name, ...more] = tableNames;
    if (!name || more.length) fail();
    for (const { node, parent } of mentions.filter(({ node }) => node.name === name)) {
      const declares = parent?.type === 'VariableDeclarator' && parent.id === node;
      if (declares && parent.init?.type === 'ObjectExpression') table = parent.init;
      // Read only as `other: O` or `O.x`.
      const named = declares || (parent?.type === 'Property' && parent.value === node) || (parent?.type === 'MemberExpression' && parent.object === node && !parent.computed);
      if (!named) fail();
    }
    if (!table || computedOnTable.some((member) => member.object.type !== 'Identifier' || member.object.name === name)) fail();
    const properties = table!.properties as AstNode[];
    const unread = properties.filter((property) => property.type === 'Property' && !property.computed && property.key.type === 'Identifier' && !live.has(property.key.name));
    if (!unread.length) fail();
    // Each with its comma (the one after it; the last one's before it).
    const edits = unread.map((property) => {
      const index = properties.indexOf(property);
      const next = properties[index + 1];
      return next ? { start: property.start, end: next.start, text: '' } : { start: properties[index - 1]!.end, end: property.end, text: '' };
    });
    return { code: edit(code, edits), names: unread.map((property) => property.key.name as string) };
  });
