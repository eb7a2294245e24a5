// The build's trims of marked and DOMPurify (scripts/trim-libraries.ts) run here on the libraries'
// modules as installed, with rolldown's own parser: each takes out what it says, and fails the build,
// rather than trimming blind, when the library no longer has the shape it expects or when a module
// importing the library names what was taken out. (The built chunks' behaviour is tested in the
// browsers: test/browser/widget-sanitizer-built.test.ts and the built-file suites.)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseAst } from 'rolldown/parseAst';
import type { Plugin } from 'vite';
import {
  dompurifyConstantsMarkedPure,
  dompurifyEntriesWithoutBabelDestructuring,
  dompurifyWithoutDefaultAllowLists,
  dompurifyWithoutUnusedOptionsAndMethods,
  markedWithDefaultOptionsFolded,
  markedWithoutDefaultInstance,
  markedWithoutUnreadPatterns,
} from '../../scripts/trim-libraries.js';

const MARKED = fileURLToPath(new URL('../../node_modules/marked/lib/marked.esm.js', import.meta.url));
const DOMPURIFY = fileURLToPath(new URL('../../node_modules/dompurify/dist/purify.es.mjs', import.meta.url));
const CHAT_MARKDOWN = '/src/widget/answer-engine/markdown/incremental-markdown.ts';
const CHAT_SANITIZER = '/src/widget/answer-engine/markdown/dompurify-sanitizer.ts';

/** A build as far as the trims see it: the modules transformed in order, then the end of the build. */
function build(plugin: Plugin, modules: [id: string, code: string][], importers: Record<string, string[]> = {}): Record<string, string> {
  const context = {
    parse: (code: string) => parseAst(code),
    error(message: string): never {
      throw new Error(message);
    },
    getModuleInfo: (id: string) => ({ importers: importers[id] ?? [], dynamicImporters: [] }),
  };
  const out: Record<string, string> = {};
  for (const [id, code] of modules) {
    const result = (plugin.transform as unknown as (this: typeof context, code: string, id: string) => { code: string } | undefined).call(context, code, id);
    out[id] = result?.code ?? code;
  }
  (plugin.buildEnd as unknown as ((this: typeof context) => void) | undefined)?.call(context);
  return out;
}

const marked = () => {
  const cut = build(markedWithoutDefaultInstance(), [[MARKED, readFileSync(MARKED, 'utf8')]]);
  return cut[MARKED]!;
};
const CHAT_MARKED_IMPORT = `import { getDefaults, Lexer, Parser } from 'marked';\nconst options = { ...getDefaults() };\nexport const html = (text) => Parser.parse(Lexer.lex(text, options), options);`;

test("marked's reads of pedantic, extensions, hooks, silent, gfm and breaks become the defaults' values", () => {
  const code = marked();
  for (const option of ['pedantic', 'extensions', 'hooks', 'silent', 'gfm', 'breaks']) assert.match(code, new RegExp(`this\\.options\\.${option}\\b`), option);
  const out = build(markedWithDefaultOptionsFolded(), [[CHAT_MARKDOWN, CHAT_MARKED_IMPORT], [MARKED, code]], { [MARKED]: [CHAT_MARKDOWN] })[MARKED]!;
  assert.doesNotMatch(out, /this\.options\.(pedantic|extensions|hooks|silent|gfm|breaks)\b/);
  assert.match(out, /\(!1\)/);
  assert.match(out, /task:!!\(!0\)&&/, 'gfm is true');
  assert.match(out, /this\.options\.renderer/, 'options the chat sets are still read');
});

test('the marked trim fails if its defaults change, if its defaults may still be set, or if an importer names a folded option', () => {
  const code = marked();
  assert.throws(() => build(markedWithDefaultOptionsFolded(), [[MARKED, code.replace('pedantic:!1', 'pedantic:!0')]]), /defaults changed/);
  // The chat takes GitHub-flavoured markdown without `breaks` from the defaults.
  assert.throws(() => build(markedWithDefaultOptionsFolded(), [[MARKED, code.replace('gfm:!0', 'gfm:!1')]]), /defaults changed/);
  assert.throws(() => build(markedWithDefaultOptionsFolded(), [[MARKED, code.replace('breaks:!1', 'breaks:!0')]]), /defaults changed/);
  // Without the cut of the default instance, its setOptions still writes the defaults.
  assert.throws(() => build(markedWithDefaultOptionsFolded(), [[MARKED, readFileSync(MARKED, 'utf8')]]), /defaults changed/);
  const naming = CHAT_MARKED_IMPORT.replace('...getDefaults()', '...getDefaults(), pedantic: false');
  assert.throws(() => build(markedWithDefaultOptionsFolded(), [[CHAT_MARKDOWN, naming], [MARKED, code]], { [MARKED]: [CHAT_MARKDOWN] }), /incremental-markdown\.ts names pedantic/);
  const breaking = CHAT_MARKED_IMPORT.replace('...getDefaults()', '...getDefaults(), breaks: true');
  assert.throws(() => build(markedWithDefaultOptionsFolded(), [[CHAT_MARKDOWN, breaking], [MARKED, code]], { [MARKED]: [CHAT_MARKDOWN] }), /incremental-markdown\.ts names breaks/);
  // An importer the trim never saw fails too.
  assert.throws(() => build(markedWithDefaultOptionsFolded(), [[MARKED, code]], { [MARKED]: ['/node_modules/some-marked-extension/index.js'] }), /some-marked-extension/);
});

const folded = (code = marked()) => build(markedWithDefaultOptionsFolded(), [[MARKED, code]])[MARKED]!;
const patternsTrimmed = (code = folded(), chat = CHAT_MARKED_IMPORT) =>
  build(markedWithoutUnreadPatterns(), [[CHAT_MARKDOWN, chat], [MARKED, code]], { [MARKED]: [CHAT_MARKDOWN] })[MARKED]!;

test("marked's shared patterns that nothing reads outside the branches only pedantic ran go from its table", () => {
  const out = patternsTrimmed();
  // Read only where pedantic is on, and one read nowhere.
  for (const unread of ['pedanticHrefTitle', 'pedanticHeadingBeginRegex', 'listReplaceNesting', 'spaceLine', 'outputLinkReplace']) assert.doesNotMatch(out, new RegExp(`[{,]${unread}:`), unread);
  // Read where pedantic is off too, or by the rules the chat uses: kept.
  for (const kept of ['tabCharGlobal', 'codeRemoveIndent', 'listIsTask', 'headingBeginRegex', 'startAngleBracket']) assert.match(out, new RegExp(`[{,]${kept}:`), kept);
  // Untrimmed marked (pedantic still read) keeps them: only a branch that can no longer run does not count.
  assert.match(patternsTrimmed(marked()), /[{,]pedanticHrefTitle:/);
  assert.doesNotMatch(patternsTrimmed(marked()), /[{,]outputLinkReplace:/);
});

test('the pattern trim fails if the table is read by a computed name, or a module importing marked names a pattern it took out', () => {
  const code = folded();
  assert.throws(() => patternsTrimmed(code.replace('this.rules.other.listIsTask.test(p)', 'this.rules.other["listIs"+"Task"].test(p)')), /markedWithoutUnreadPatterns/);
  assert.throws(() => patternsTrimmed(code, `${CHAT_MARKED_IMPORT}\nexport const spaceLine = 1;`), /incremental-markdown\.ts names spaceLine/);
});

const CHAT_DOMPURIFY_IMPORT = `import createDOMPurify from 'dompurify';\nconst purifier = createDOMPurify(window);\npurifier.setConfig({ ALLOWED_TAGS: ['p'], ALLOWED_ATTR: [], RETURN_DOM_FRAGMENT: true });\npurifier.addHook('afterSanitizeAttributes', () => {});\nexport const clean = (html) => purifier.sanitize(html, { RETURN_DOM_FRAGMENT: true });`;
const dompurify = (code = readFileSync(DOMPURIFY, 'utf8'), chat = CHAT_DOMPURIFY_IMPORT) =>
  build(dompurifyWithoutUnusedOptionsAndMethods(), [[CHAT_SANITIZER, chat], [DOMPURIFY, code]], { [DOMPURIFY]: [CHAT_SANITIZER] })[DOMPURIFY]!;

test("DOMPurify's options that are off unless set become constants, and the methods the chat never calls go", () => {
  const out = dompurify();
  for (const option of ['IN_PLACE', 'SAFE_FOR_TEMPLATES', 'WHOLE_DOCUMENT', 'FORCE_BODY', 'SANITIZE_NAMED_PROPS', 'RETURN_TRUSTED_TYPE', 'ALLOW_UNKNOWN_PROTOCOLS', 'USE_PROFILES']) {
    assert.match(out, new RegExp(`const ${option} = false;`));
    assert.doesNotMatch(out, new RegExp(`\\b${option} = (cfg|objectHasOwnProperty)`));
  }
  for (const option of ['SAFE_FOR_XML', 'KEEP_CONTENT', 'SANITIZE_DOM', 'ALLOW_SELF_CLOSE_IN_ATTR']) {
    assert.match(out, new RegExp(`const ${option} = true;`));
    assert.doesNotMatch(out, new RegExp(`\\b${option} = cfg`));
  }
  for (const method of ['clearConfig', 'isValidAttribute', 'removeHook', 'removeHooks', 'removeAllHooks']) assert.doesNotMatch(out, new RegExp(`DOMPurify\\.${method} =`));
  // What the chat sets, and every check under it, stays.
  for (const kept of ['RETURN_DOM_FRAGMENT = cfg.RETURN_DOM_FRAGMENT', 'ALLOW_DATA_ATTR = cfg.ALLOW_DATA_ATTR', 'DOMPurify.sanitize =', 'DOMPurify.setConfig =', 'DOMPurify.addHook =', '_checkValidNamespace', '_isClobbered', 'IS_ALLOWED_URI']) {
    assert.ok(out.includes(kept), kept);
  }
});

test("DOMPurify's parser type, namespace and address rule become constants of their values when the config does not name them", () => {
  const out = dompurify();
  for (const fixed of ['const PARSER_MEDIA_TYPE = "text/html";', 'const transformCaseFunc = stringToLowerCase;', 'const NAMESPACE = HTML_NAMESPACE;', 'const IS_ALLOWED_URI$1 = IS_ALLOWED_URI;']) assert.ok(out.includes(fixed), fixed);
  assert.doesNotMatch(out, /\n\t+(PARSER_MEDIA_TYPE|transformCaseFunc|NAMESPACE|IS_ALLOWED_URI\$1) = /, "no write is left");
  // The XHTML branch is still in the source, for the minifier to drop: `PARSER_MEDIA_TYPE === "application/xhtml+xml"` is now always false.
  assert.match(out, /if \(PARSER_MEDIA_TYPE === "application\/xhtml\+xml" && NAMESPACE === HTML_NAMESPACE\)/);
  const code = readFileSync(DOMPURIFY, 'utf8');
  // Another default, another way to read the option, a second write: each fails the build.
  assert.throws(() => dompurify(code.replace('const DEFAULT_PARSER_MEDIA_TYPE = "text/html";', 'const DEFAULT_PARSER_MEDIA_TYPE = "application/xhtml+xml";')), /PARSER_MEDIA_TYPE only by/);
  assert.throws(() => dompurify(code.replace('typeof cfg.NAMESPACE === "string" ? cfg.NAMESPACE : HTML_NAMESPACE', 'cfg.NAMESPACE || HTML_NAMESPACE')), /NAMESPACE only by/);
  assert.throws(() => dompurify(code.replace('\t\tKEEP_CONTENT = cfg.KEEP_CONTENT !== false;', '$&\n\t\tif (cfg.PARSER) transformCaseFunc = stringToString;')), /transformCaseFunc only by/);
  assert.throws(() => dompurify(code, CHAT_DOMPURIFY_IMPORT.replace('RETURN_DOM_FRAGMENT: true }', "RETURN_DOM_FRAGMENT: true, PARSER_MEDIA_TYPE: 'application/xhtml+xml' }")), /dompurify-sanitizer\.ts names PARSER_MEDIA_TYPE/);
  assert.throws(() => dompurify(code, CHAT_DOMPURIFY_IMPORT.replace('RETURN_DOM_FRAGMENT: true }', 'RETURN_DOM_FRAGMENT: true, ALLOWED_URI_REGEXP: /^https:/ }')), /names ALLOWED_URI_REGEXP/);
});

test("DOMPurify's ADD_TAGS, ADD_ATTR and ADD_FORBID_CONTENTS, which the config never names, go with the extra checks only they set", () => {
  const out = dompurify();
  for (const option of ['ADD_TAGS', 'ADD_ATTR', 'ADD_FORBID_CONTENTS']) assert.doesNotMatch(out, new RegExp(`cfg\\.${option}|"${option}"`), option);
  assert.doesNotMatch(out, /EXTRA_ELEMENT_HANDLING/);
  assert.ok(out.includes('const nameIsPermitted = ALLOWED_ATTR[lcName] || false;'));
  assert.ok(out.includes('FORBID_TAGS[tagName] || !(false) && !ALLOWED_TAGS[tagName]'));
  const code = readFileSync(DOMPURIFY, 'utf8');
  // The checks set from anywhere else, an option read in a second place, or named by the chat: each fails the build.
  assert.throws(() => dompurify(code.replace('\t\tEXTRA_ELEMENT_HANDLING.attributeCheck = null;', '$&\n\t\tif (cfg.CHECK) EXTRA_ELEMENT_HANDLING.attributeCheck = cfg.CHECK;')), /EXTRA_ELEMENT_HANDLING only from ADD_TAGS and ADD_ATTR/);
  assert.throws(() => dompurify(code.replace('\t\tif (KEEP_CONTENT) ALLOWED_TAGS["#text"] = true;', '$&\n\t\tif (objectHasOwnProperty(cfg, "ADD_TAGS")) ALLOWED_TAGS.x = true;')), /ADD_TAGS in one/);
  assert.throws(() => dompurify(code, CHAT_DOMPURIFY_IMPORT.replace('RETURN_DOM_FRAGMENT: true }', "RETURN_DOM_FRAGMENT: true, ADD_ATTR: ['target'] }")), /dompurify-sanitizer\.ts names ADD_ATTR/);
});

test("DOMPurify's CUSTOM_ELEMENT_HANDLING, which the config never names, goes with its tests, each false as it was for an empty one", () => {
  const out = dompurify();
  assert.doesNotMatch(out, /CUSTOM_ELEMENT_HANDLING(\.| =|\))|customElementHandling/);
  assert.ok(out.includes('if (!nameIsPermitted) return false;'), 'a name not allowed is refused');
  // The tests of the tag name and the `is` attribute go; the checks around them stay.
  assert.doesNotMatch(out, /_isBasicCustomElement\((tagName|lcTag)\) &&/);
  for (const kept of ['_checkValidNamespace(currentNode)', 'KEEP_CONTENT && !FORBID_CONTENTS[tagName]', 'if (!ALLOWED_NAMESPACES[elementNamespace]) return false;']) assert.ok(out.includes(kept), kept);
  const code = readFileSync(DOMPURIFY, 'utf8');
  // A test of it with anything but reads beside it, a mention elsewhere, or the chat naming it: each fails the build.
  assert.throws(() => dompurify(code.replace('if (!FORBID_TAGS[tagName] && _isBasicCustomElement(tagName) && _matchesNameCheck(', 'if (!FORBID_TAGS[tagName] && _forceRemove(currentNode) && _matchesNameCheck(')), /CUSTOM_ELEMENT_HANDLING as expected/);
  assert.throws(() => dompurify(code.replace('\t\tseal(CUSTOM_ELEMENT_HANDLING);', '$&\n\t\tDOMPurify.customElements = CUSTOM_ELEMENT_HANDLING;')), /CUSTOM_ELEMENT_HANDLING as expected/);
  assert.throws(() => dompurify(code, CHAT_DOMPURIFY_IMPORT.replace('RETURN_DOM_FRAGMENT: true }', 'RETURN_DOM_FRAGMENT: true, CUSTOM_ELEMENT_HANDLING: { tagNameCheck: /^x-/ } }')), /dompurify-sanitizer\.ts names CUSTOM_ELEMENT_HANDLING/);
});

test("DOMPurify's set and object options the config never names are read as the defaults their resolvers then give", () => {
  const out = dompurify();
  for (const [setting, fallback] of [['ALLOWED_NAMESPACES', 'DEFAULT_ALLOWED_NAMESPACES'], ['URI_SAFE_ATTRIBUTES', 'DEFAULT_URI_SAFE_ATTRIBUTES'], ['DATA_URI_TAGS', 'DEFAULT_DATA_URI_TAGS'], ['FORBID_CONTENTS', 'DEFAULT_FORBID_CONTENTS'], ['FORBID_TAGS', 'create(null)'], ['FORBID_ATTR', 'create(null)'], ['MATHML_TEXT_INTEGRATION_POINTS', 'DEFAULT_MATHML_TEXT_INTEGRATION_POINTS'], ['HTML_INTEGRATION_POINTS', 'DEFAULT_HTML_INTEGRATION_POINTS']]) {
    assert.ok(out.includes(`${setting} = ${fallback};`), setting);
  }
  // The options the chat sets are still read.
  assert.ok(out.includes('ALLOWED_TAGS = _resolveSetOption(cfg, "ALLOWED_TAGS"'));
  const code = readFileSync(DOMPURIFY, 'utf8');
  // A resolver that no longer gives its fallback for an option not named, an option read twice, or named by the chat: each fails the build.
  assert.throws(() => dompurify(code.replace('typeof value === "object" ? clone(value) : fallback;', 'typeof value === "object" ? clone(value) : clone(fallback);')), /_resolveObjectOption is no longer/);
  assert.throws(() => dompurify(code.replace('\t\tKEEP_CONTENT = cfg.KEEP_CONTENT !== false;', '$&\n\t\tFORBID_ATTR = _resolveSetOption(cfg, "FORBID_ATTR", FORBID_ATTR, {});')), /FORBID_ATTR once/);
  assert.throws(() => dompurify(code, CHAT_DOMPURIFY_IMPORT.replace('RETURN_DOM_FRAGMENT: true }', "RETURN_DOM_FRAGMENT: true, FORBID_TAGS: ['img'] }")), /dompurify-sanitizer\.ts names FORBID_TAGS/);
});

test('the DOMPurify trim fails if an option is set elsewhere, a method is called by DOMPurify itself, or an importer names either', () => {
  const code = readFileSync(DOMPURIFY, 'utf8');
  assert.throws(() => dompurify(code.replace('\t\tKEEP_CONTENT = cfg.KEEP_CONTENT !== false;', '$&\n\t\tif (cfg.PARANOID) IN_PLACE = true;')), /IN_PLACE as an option off unless set/);
  assert.throws(() => dompurify(code.replace('SAFE_FOR_XML = cfg.SAFE_FOR_XML !== false;', 'SAFE_FOR_XML = cfg.SAFE_FOR_XML === true;')), /SAFE_FOR_XML as an option on unless turned off/);
  assert.throws(() => dompurify(code.replace('"USE_PROFILES") ? cfg.USE_PROFILES && typeof', '"USE_PROFILES") || true ? cfg.USE_PROFILES && typeof')), /USE_PROFILES as an option off unless set/);
  assert.throws(() => dompurify(code.replace('\tDOMPurify.removed = [];', '$&\n\tDOMPurify.reset = () => DOMPurify.removeAllHooks();')), /removeAllHooks as a method it never calls itself/);
  assert.throws(() => dompurify(code, CHAT_DOMPURIFY_IMPORT.replace('RETURN_DOM_FRAGMENT: true }', 'RETURN_DOM_FRAGMENT: true, WHOLE_DOCUMENT: false }')), /dompurify-sanitizer\.ts names WHOLE_DOCUMENT/);
  assert.throws(() => dompurify(code, `${CHAT_DOMPURIFY_IMPORT}\nexport const allowed = (tag, name, value) => purifier.isValidAttribute(tag, name, value);`), /names isValidAttribute/);
});

test("DOMPurify's HTML attribute list is emptied when only its defaults read it, a parameter of its name notwithstanding", () => {
  const code = readFileSync(DOMPURIFY, 'utf8');
  const trim = (source: string) => build(dompurifyWithoutDefaultAllowLists(), [[DOMPURIFY, source]])[DOMPURIFY]!;
  assert.match(code, /createHTML\(html\)/);
  assert.match(trim(code), /const html = freeze\(\[\]\);/);
  // A module-level read of the list keeps it.
  assert.match(trim(code.replace('const text = freeze(["#text"]);', '$&\nglobalThis.attributes = html;')), /const html = freeze\(\[\n\t"accept"/);
});

test("DOMPurify's destructuring of Object.entries() items no longer goes through Babel's _slicedToArray", () => {
  const code = readFileSync(DOMPURIFY, 'utf8');
  const trim = (source: string) => build(dompurifyEntriesWithoutBabelDestructuring(), [[DOMPURIFY, source]])[DOMPURIFY]!;
  assert.match(code, /_slicedToArray\(_ref2, 2\)/);
  assert.doesNotMatch(trim(code), /= _slicedToArray\(/, "no call is left, only the helper no one calls");
  assert.match(trim(code), /var _ref3 = _ref2;/);
  // A call on anything but an Object.entries() item fails the build.
  assert.throws(() => trim(code.replace('const newObject = create(null);', '$&\n\tconst [first] = _slicedToArray(object, 1);')), /_slicedToArray/);
  assert.throws(() => trim(code.replace('for (const _ref2 of entries(object))', 'for (const _ref2 of new Map(entries(object)))')), /_slicedToArray/);
});

test("DOMPurify's constants made by its own freeze, seal, unapply and unconstruct are marked pure, so the minifier drops those nothing reads", () => {
  const code = readFileSync(DOMPURIFY, 'utf8');
  const trim = (source: string) => build(dompurifyConstantsMarkedPure(), [[DOMPURIFY, source]])[DOMPURIFY]!;
  const out = trim(code);
  assert.ok(out.includes('const MUSTACHE_EXPR = /* @__PURE__ */ seal(/{{[\\w\\W]*|^[\\w\\W]*}}/g);'), 'a pattern only SAFE_FOR_TEMPLATES reads');
  assert.ok(out.includes('const text = /* @__PURE__ */ freeze(["#text"]);'));
  // The read of a method goes with the call: it is made inside a pure function called with nothing.
  assert.ok(out.includes('const arrayPop = /* @__PURE__ */ (() => unapply(Array.prototype.pop))();'));
  assert.ok(out.includes('const typeErrorCreate = /* @__PURE__ */ unconstruct(TypeError);'));
  // A call on anything but literals, a method or a name is left as it is.
  assert.ok(out.includes('const LITERAL_TEXT_ELEMENTS = freeze(addToSet({}, ['));
  // Helpers that may do more than make a value fail the build.
  assert.throws(() => trim(code.replace('if (!freeze) freeze = function freeze(x) {\n\treturn x;\n};', 'if (!freeze) freeze = function freeze(x) {\n\tglobalThis.frozen = x;\n\treturn x;\n};')), /dompurifyConstantsMarkedPure/);
  assert.throws(() => trim(code.replace('let seal = Object.seal;', 'let seal = Object.seal;\nseal = (x) => (globalThis.sealed = x);')), /dompurifyConstantsMarkedPure/);
  assert.throws(() => trim(code.replace(/function unapply\(func\) \{/, '$&\n\tglobalThis.unapplied = func;')), /dompurifyConstantsMarkedPure/);
});
