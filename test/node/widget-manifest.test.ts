// custom-elements.json is the element's public contract, generated from its JSDoc: every event,
// attribute, method, CSS part and CSS custom property the element has must be in it, and nothing else.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const widgetSources = (folder: string): string[] =>
  readdirSync(`${root}${folder}`, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? widgetSources(`${folder}/${entry.name}`) : entry.name.endsWith('.ts') ? [readFileSync(`${root}${folder}/${entry.name}`, 'utf8')] : [],
  );
const source = widgetSources('src/widget').join('\n');

interface Named {
  name: string;
  description?: string;
  kind?: string;
  privacy?: string;
  static?: boolean;
}

test('custom-elements.json documents exactly the public contract of <kagent-chat>', () => {
  execFileSync(process.execPath, [`${root}node_modules/@custom-elements-manifest/analyzer/cem.js`, 'analyze', '--quiet'], { cwd: root, stdio: 'pipe' });
  const manifest = JSON.parse(readFileSync(`${root}custom-elements.json`, 'utf8')) as {
    modules: { path: string; declarations?: (Named & { tagName?: string; events?: Named[]; attributes?: Named[]; members?: Named[]; cssParts?: Named[]; cssProperties?: Named[] })[] }[];
  };
  const found = manifest.modules.flatMap((module) => (module.declarations ?? []).filter((d) => d.tagName === 'kagent-chat').map((d) => ({ module, element: d })));
  assert.equal(found.length, 1, 'one declaration of kagent-chat');
  const { module, element } = found[0]!;
  assert.equal(module.path, 'dist/widget/element/kagent-chat.js', 'the path is the module that ships');

  // Events: the six of the API, each described; none invented from the code (such as a helper's `type`).
  assert.deepEqual(element.events?.map((event) => event.name).sort(), ['kagent-answer', 'kagent-close', 'kagent-error', 'kagent-feedback', 'kagent-open', 'kagent-send']);
  for (const event of element.events ?? []) assert.ok(event.description, `${event.name} is described`);

  const attributes = element.attributes?.map((attribute) => attribute.name) ?? [];
  for (const name of ['agent-id', 'endpoint', 'streaming', 'mode', 'position', 'open', 'theme', 'heading', 'placeholder', 'welcome', 'suggestions', 'loading', 'proxy-features', 'feedback']) {
    assert.ok(attributes.includes(name), `attribute ${name}`);
  }
  const publicMembers = (element.members ?? []).filter((member) => member.privacy !== 'private' && member.privacy !== 'protected' && !member.static);
  const methods = publicMembers.filter((member) => member.kind === 'method').map((member) => member.name);
  for (const name of ['send', 'stop', 'newConversation', 'open', 'close', 'toggle']) assert.ok(methods.includes(name), `method ${name}`);
  for (const name of ['queryOptions', 'strings', 'opened', 'loading']) assert.ok(publicMembers.some((member) => member.name === name && member.description), `property ${name}, described`);

  // Every part the element puts on a node, and every --kagent-* property its styles read, is documented.
  // (`part=${busy ? 'stop' : 'send'}`: one node that is either part.)
  const either = [...source.matchAll(/part=\$\{[^}?]*\? '([\w-]+)' : '([\w-]+)'\}/g)].flatMap((match) => [match[1]!, match[2]!]);
  // (`part: 'x'`: an attribute of an element the second part builds with makeElement.)
  const parts = new Set([...[...source.matchAll(/part="([\w-]+)"/g), ...source.matchAll(/setAttribute\('part', '([\w-]+)'\)/g), ...source.matchAll(/\bpart: '([\w-]+)'/g)].map((match) => match[1]!), ...either]);
  const documentedParts = new Set(element.cssParts?.map((part) => part.name));
  assert.ok(parts.size >= 25, `found the element's parts (${parts.size})`);
  assert.deepEqual([...parts].filter((part) => !documentedParts.has(part)), [], 'parts without a @csspart');
  assert.deepEqual([...documentedParts].filter((part) => !parts.has(part)), [], '@csspart tags for parts that do not exist');

  // Properties the element sets on itself (the visual viewport's size) are internal, not theming.
  const internal = new Set([...source.matchAll(/setProperty\('(--kagent-[\w-]+)'/g)].map((match) => match[1]!));
  const read = new Set([...source.matchAll(/var\((--kagent-[\w-]+)/g)].map((match) => match[1]!).filter((name) => !internal.has(name)));
  const documentedProperties = new Set(element.cssProperties?.map((property) => property.name));
  assert.ok(read.size >= 15, `found the theming properties (${read.size})`);
  assert.deepEqual([...read].filter((name) => !documentedProperties.has(name)), [], 'CSS properties without a @cssproperty');
  assert.deepEqual([...documentedProperties].filter((name) => !read.has(name)), [], '@cssproperty tags no style reads');
});
