import { expect } from '@open-wc/testing';
import { agentLog, lastAnswer, part, parts, removeAllChats, settled, uniqueAgent } from './widget-helpers.js';

// The script-tag build, exactly as a site uses it: one module script, no imports of our own.
describe('dist/kagent-chat.js through a plain <script type="module"> tag', () => {
  afterEach(removeAllChats);

  it('defines <kagent-chat> when loaded, and streams an answer with its sources', async () => {
    expect(customElements.get('kagent-chat')).to.equal(undefined);
    const script = document.createElement('script');
    script.type = 'module';
    script.src = '/dist/kagent-chat.js';
    const loaded = new Promise((resolve, reject) => {
      script.onload = resolve;
      script.onerror = () => reject(new Error('dist/kagent-chat.js did not load: run `npm run build`'));
    });
    document.head.append(script);
    await loaded;
    expect(customElements.get('kagent-chat')).to.be.a('function');

    const agent = uniqueAgent('built');
    document.body.insertAdjacentHTML('beforeend', `<kagent-chat agent-id="${agent}" endpoint="/scripted/widget/answer"></kagent-chat>`);
    const chat = document.querySelector('kagent-chat')!;
    await chat.updateComplete;
    // Reactive properties work in the built code (decorators were compiled, not left raw).
    expect(chat.agentId).to.equal(agent);
    expect(chat.streaming).to.equal(true);
    expect(chat.loading).to.equal('idle');

    (part(chat, 'input') as HTMLTextAreaElement).value = 'From the built file?';
    (part(chat, 'send') as HTMLButtonElement).click();
    await settled(chat);
    expect(lastAnswer(chat)!.querySelector('strong')!.textContent).to.equal('Settings');
    expect(lastAnswer(chat)!.querySelectorAll('.citation')).to.have.length(2);
    expect(parts(chat, 'source')).to.have.length(2);
    expect((await agentLog(agent)).posts).to.equal(1);
    // A module sets no globals; what it offers is its exports, the second part's through loadAnswerEngine().
    expect(Object.keys(window).filter((key) => /kagent/i.test(key))).to.deep.equal([]);
    const built = (await import(/* @vite-ignore */ `${location.origin}/dist/kagent-chat.js`)) as typeof import('../../src/widget/script-tag.js');
    expect(built.KagentChat).to.equal(customElements.get('kagent-chat'));
    expect(built.withStrings({ send: 'Envoyer' }).send).to.equal('Envoyer');
    const engine = await built.loadAnswerEngine();
    const html = (markdown: string) => engine.renderMarkdown(markdown).map((node) => (node as Element).outerHTML ?? node.textContent).join('').trim();
    expect(html('**b**')).to.equal('<p><strong>b</strong></p>');
    // The built sanitizer (the browser's own, or DOMPurify as the build trims it where the page hides it) and the chat's rules on it.
    expect(html('[x](javascript:alert(1)) ![pic](data:image/png;base64,AAAA)')).to.equal('<p><a target="_blank" rel="noopener noreferrer">x</a> pic</p>');
    expect(html('<script>alert(1)</script>')).to.equal('<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>');
    // The build empties DOMPurify's default allow-lists: what the chat keeps comes from its own lists, so
    // every tag and attribute the chat's markdown makes must still come through the built sanitizer.
    const box = document.createElement('div');
    box.append(
      ...engine.renderMarkdown(
        ['# a', '## b', '### c', '#### d', '##### e', '###### f', '*g* **h** ~~i~~ j  \nk', '---', '> l', '3. [x] m', '', '- n', '',
          '```ts\no\n```', '| p | q |\n|:--|--:|\n| r | s |', '[t](https://example.com/ "u") ![v](https://example.com/w.png "x")'].join('\n\n'),
      ),
    );
    for (const selector of ['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'em', 'strong', 'del', 'br', 'hr', 'blockquote', 'ol[start="3"] > li > input[type="checkbox"][checked][disabled]',
      'ul > li', 'pre > code.language-ts', 'table > thead > tr > th[align="left"]', 'table > tbody > tr > td[align="right"]', 'a[href="https://example.com/"][title="u"]',
      'img[src="https://example.com/w.png"][alt="v"][title="x"]']) {
      expect(box.querySelector(selector), selector).not.to.equal(null);
    }
    // A browser without a sanitizer of its own fetches the second part with DOMPurify inside, one file; one with a
    // sanitizer, the second part alone. Neither fetches DOMPurify's own chunk.
    const native = typeof (globalThis as { Sanitizer?: unknown }).Sanitizer === 'function' && 'setHTML' in Element.prototype;
    const fetched = (pattern: RegExp) => performance.getEntriesByType('resource').filter((entry) => pattern.test(new URL(entry.name).pathname)).length;
    expect(fetched(/\/kagent-chat-answers-dompurify-[\w-]+\.js$/), native ? 'no DOMPurify where the browser sanitizes' : 'the second part with DOMPurify where it does not').to.equal(native ? 0 : 1);
    expect(fetched(/\/kagent-chat-answers-(?!dompurify-)[\w-]+\.js$/), 'the second part alone').to.equal(native ? 1 : 0);
    expect(fetched(/\/kagent-chat-sanitizer-[\w-]+\.js$/), "DOMPurify's own chunk").to.equal(0);
  });

  it('the second part is a file beside the first that imports nothing from it, DOMPurify a third that imports nothing either, and the first holds no markdown engine', async () => {
    const first = await (await fetch('/dist/kagent-chat.js')).text();
    const chunk = /import\(["'`]\.\/(kagent-chat-answers-(?!dompurify-)[\w-]+\.js)["'`]\)/.exec(first)?.[1];
    expect(chunk, 'the first part imports the second from its own address').to.be.a('string');
    const second = await (await fetch(`/dist/${chunk}`)).text();
    expect(second).to.match(/export\s*\{/);
    // No static import at all: loaded under another address (a ?ver= query), it still needs nothing more.
    // `import {`, `import *`, `import "`, `import x from`: not the word "imported" in a string of the chat's own.
    const staticImport = /(^|[;}\s])import(?:\s*[{*"'`]|\s+[\w$])/;
    expect(second).not.to.match(staticImport);
    // DOMPurify: a chunk the second part imports only when the browser has no sanitizer of its own.
    const sanitizerChunk = /import\(["'`]\.\/(kagent-chat-sanitizer-[\w-]+\.js)["'`]\)/.exec(second)?.[1];
    expect(sanitizerChunk, 'the second part imports DOMPurify from its own address').to.be.a('string');
    const sanitizer = await (await fetch(`/dist/${sanitizerChunk}`)).text();
    expect(sanitizer).not.to.match(staticImport);
    // marked lives only in the second part (its lexer names the byte it would loop on), DOMPurify only in its own.
    expect(first).not.to.contain('Infinite loop on byte');
    expect(second).to.contain('Infinite loop on byte');
    for (const file of [first, second]) expect(file).not.to.contain('DOMPurify');
    expect(sanitizer).to.contain('DOMPurify');
  });

  it('the second part with DOMPurify inside is a file beside the first that imports nothing statically, and what the second part imports but DOMPurify', async () => {
    const first = await (await fetch('/dist/kagent-chat.js')).text();
    const named = (pattern: RegExp) => pattern.exec(first)?.[1];
    const secondName = named(/import\(["'`]\.\/(kagent-chat-answers-(?!dompurify-)[\w-]+\.js)["'`]\)/)!;
    const insideName = named(/import\(["'`]\.\/(kagent-chat-answers-dompurify-[\w-]+\.js)["'`]\)/);
    expect(insideName, 'the first part imports it from its own address').to.be.a('string');
    const [second, inside] = (await Promise.all([secondName, insideName].map(async (name) => (await fetch(`/dist/${name}`)).text()))) as [string, string];
    expect(inside).not.to.match(/(^|[;}\s])import(?:\s*[{*"'`]|\s+[\w$])/);
    expect(inside).to.contain('Infinite loop on byte');
    expect(inside).to.contain('DOMPurify');
    // The session keeper's chunk is the one the first build made (one keeper in dist/, one Worker script).
    const dynamicImports = (code: string) => [...code.matchAll(/import\(["'`]\.\/(kagent-chat-[\w-]+\.js)["'`]\)/g)].map((match) => match[1]!);
    expect(dynamicImports(inside)).to.deep.equal(dynamicImports(second).filter((file) => !file.startsWith('kagent-chat-sanitizer-')));
    // It offers the first part what the second part does.
    const [plain, withDomPurify] = (await Promise.all([secondName, insideName].map((name) => import(/* @vite-ignore */ `${location.origin}/dist/${name}`)))) as [object, object];
    expect(Object.keys(withDomPurify).sort()).to.deep.equal([...Object.keys(plain), 'domPurifySanitizer'].sort());
  });

  it('calls no built-in newer than the floor docs/widget.md names (ES2022, with ES2023\'s findLast and findLastIndex), which the ES2022 target does not rewrite', async () => {
    // Every file the chat may load, found from the first part's imports and theirs.
    const files = new Map<string, string>();
    const visit = async (name: string): Promise<void> => {
      if (files.has(name)) return;
      const code = await (await fetch(`/dist/${name}`)).text();
      files.set(name, code);
      for (const [, next] of code.matchAll(/["'`]\.\/(kagent-chat-[\w-]+\.js)["'`]/g)) await visit(next!);
    };
    await visit('kagent-chat.js');
    expect([...files.keys()].some((name) => name.startsWith('kagent-chat-sessions-')), 'the keeper among them').to.equal(true);
    // Built-ins of ES2023 and later (the array copies, groupBy, withResolvers, fromAsync, well-formed strings, the new Set
    // methods, iterator helpers) and structuredClone (Chrome 98): each needs browsers past that floor.
    const newer = /\.(?:toSorted|toReversed|toSpliced|with|isWellFormed|toWellFormed|union|intersection|symmetricDifference|isSubsetOf|isSupersetOf|isDisjointFrom)\(|\b(?:Object|Map)\.groupBy\b|\bPromise\.withResolvers\b|\bArray\.fromAsync\b|\bIterator\.from\b|\bstructuredClone\b/;
    for (const [name, code] of files) expect(newer.exec(code)?.[0], name).to.equal(undefined);
  });
});
