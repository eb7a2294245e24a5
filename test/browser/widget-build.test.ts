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
    // DOMPurify's chunk is fetched only by a browser without a sanitizer of its own.
    const native = typeof (globalThis as { Sanitizer?: unknown }).Sanitizer === 'function' && 'setHTML' in Element.prototype;
    const fetched = performance.getEntriesByType('resource').filter((entry) => /\/kagent-chat-sanitizer-[\w-]+\.js$/.test(entry.name));
    expect(fetched, native ? 'no DOMPurify where the browser sanitizes' : 'DOMPurify where it does not').to.have.length(native ? 0 : 1);
  });

  it('the second part is a file beside the first that imports nothing from it, DOMPurify a third that imports nothing either, and the first holds no markdown engine', async () => {
    const first = await (await fetch('/dist/kagent-chat.js')).text();
    const chunk = /import\(["'`]\.\/(kagent-chat-answers-[\w-]+\.js)["'`]\)/.exec(first)?.[1];
    expect(chunk, 'the first part imports the second from its own address').to.be.a('string');
    const second = await (await fetch(`/dist/${chunk}`)).text();
    expect(second).to.match(/export\s*\{/);
    // No static import at all: loaded under another address (a ?ver= query), it still needs nothing more.
    const staticImport = /(^|[;}\s])import\s*[{*\w"'`]/;
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
});
