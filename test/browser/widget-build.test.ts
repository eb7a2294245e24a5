import { expect } from '@open-wc/testing';
import { agentLog, lastAnswer, part, parts, removeAllChats, settled, uniqueAgent } from './widget-helpers.js';

// The script-tag build, exactly as a site uses it: no imports, only the built file.
describe('dist/kagent-chat.js through a plain <script> tag', () => {
  afterEach(removeAllChats);

  it('defines <kagent-chat> when loaded, and streams an answer with its sources', async () => {
    expect(customElements.get('kagent-chat')).to.equal(undefined);
    const script = document.createElement('script');
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

    (part(chat, 'input') as HTMLTextAreaElement).value = 'From the built file?';
    (part(chat, 'send') as HTMLButtonElement).click();
    await settled(chat);
    expect(lastAnswer(chat)!.querySelector('strong')!.textContent).to.equal('Settings');
    expect(lastAnswer(chat)!.querySelectorAll('.citation')).to.have.length(2);
    expect(parts(chat, 'source')).to.have.length(2);
    expect((await agentLog(agent)).posts).to.equal(1);
    // The built file is the production build of Lit, and sets no globals beyond its own name.
    expect(Object.keys(window).filter((key) => /kagent/i.test(key))).to.deep.equal(['KagentChat']);
  });
});
