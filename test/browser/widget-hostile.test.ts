import './sanitizer-ready.js';
import { expect } from '@open-wc/testing';
import '../../src/widget/index.js';
import { IncrementalMarkdown, renderMarkdown } from '../../src/widget/index.js';
import { HOSTILE_ANSWER } from '../support/scripted-service.js';
import { ask, lastAnswer, mountChat, parts, removeAllChats, settled, sleep, uniqueAgent } from './widget-helpers.js';

declare global {
  interface Window {
    __trap?: (name: string) => void;
  }
}

/** Every element and attribute that could run script or leave the message. */
function dangers(root: ParentNode): string[] {
  const found: string[] = [];
  for (const element of root.querySelectorAll('*')) {
    // The chat's own feedback buttons and field under an answer (the box beside the answer's text, not in it).
    if (element.closest('.below > [part=feedback]')) continue;
    const tag = element.localName;
    if (['script', 'iframe', 'form', 'input:not([type=checkbox])', 'object', 'embed', 'style', 'svg', 'math', 'details', 'button:not(.citation):not([part=copy])'].some((s) => element.matches(s))) found.push(`<${tag}>`);
    for (const { name, value } of element.attributes) {
      if (name.startsWith('on')) found.push(`${tag}[${name}]`);
      if ((name === 'href' || name === 'src' || name === 'action' || name === 'data') && !/^(https?:|mailto:|tel:)/i.test(value.trim())) found.push(`${tag}[${name}=${value}]`);
      if (name === 'style') found.push(`${tag}[style]`);
    }
    if (tag === 'img' && !/^https?:/i.test(element.getAttribute('src') ?? '')) found.push('img without a web address');
    if (tag === 'a' && element.hasAttribute('href') && (element.getAttribute('target') !== '_blank' || element.getAttribute('rel') !== 'noopener noreferrer')) found.push(`a without target/rel: ${element.outerHTML}`);
  }
  return found;
}

describe('<kagent-chat> with hostile content', () => {
  const trapped: string[] = [];
  beforeEach(() => {
    localStorage.clear();
    trapped.length = 0;
    window.__trap = (name) => trapped.push(name);
  });
  afterEach(removeAllChats);

  it('the trap itself works (so a silent trap means nothing ran)', async () => {
    const img = document.createElement('img');
    img.setAttribute('onerror', "window.__trap('control')");
    // Listened for after the attribute's handler, which runs first: waits for the event itself, however slow the machine.
    const failed = new Promise((resolve) => img.addEventListener('error', resolve, { once: true }));
    img.src = 'data:,not-an-image';
    document.body.append(img);
    await failed;
    img.remove();
    expect(trapped).to.deep.equal(['control']);
  });

  it('renders hostile markdown with nothing run, no dangerous element, attribute or link, raw HTML shown as text', async () => {
    const chat = await mountChat(uniqueAgent('hostile'), 'hostile');
    await ask(chat, 'Be evil');
    await settled(chat);
    const answer = lastAnswer(chat)!;
    await sleep(300); // image errors and animations would have fired by now
    expect(trapped).to.deep.equal([]);
    expect(JSON.stringify(dangers(chat.shadowRoot!.querySelector(`[part="transcript"]`)!))).to.equal("[]");

    // Raw HTML is visible as text, not elements.
    expect(answer.textContent).to.contain(`<script>window.__trap('script')</script>`);
    expect(answer.textContent).to.contain('<form action=');
    // Safe parts survive.
    const safe = [...answer.querySelectorAll('a')].find((a) => a.textContent === 'a safe link')!;
    expect(safe.getAttribute('href')).to.equal('https://example.com/safe');
    expect(answer.querySelector('img')!.getAttribute('src')).to.equal('https://example.com/ok.png');
    // Links whose scheme is refused keep their text but lose the address.
    const jsLink = [...answer.querySelectorAll('a')].find((a) => a.textContent === 'js link');
    expect(jsLink?.hasAttribute('href') ?? false).to.equal(false);
    expect(answer.textContent).to.contain('data image');

    // Nothing leaks onto the host page either.
    expect(dangers(document.body).filter((d) => !d.startsWith('<script>') && !d.startsWith('script['))).to.deep.equal([]);
    // Clicking every marker and link does not run anything (links to the web are prevented from navigating the test page).
    for (const link of answer.querySelectorAll('a')) {
      link.addEventListener('click', (event) => event.preventDefault(), { once: true });
      link.click();
    }
    expect(trapped).to.deep.equal([]);
  });

  it('shows hostile source fields as text and links only http(s) addresses', async () => {
    const chat = await mountChat(uniqueAgent('hostile-sources'), 'hostile');
    await ask(chat, 'Sources, evil');
    await settled(chat);
    await sleep(200);
    const sources = parts(chat, 'source');
    expect(sources.map((s) => s.textContent!.replace(/\s+/g, ' ').trim())).to.deep.equal([
      `<img src=x onerror="window.__trap('source-name')"> · page 3 · 99% relevant`,
      'Data URL · 90% relevant',
    ]);
    expect(sources.flatMap((s) => [...s.querySelectorAll('a, img')])).to.have.length(0);
    // The [1] marker points at a source without a web address: a button, named as text.
    const marker = lastAnswer(chat)!.querySelector('.citation')!;
    expect(marker.localName).to.equal('button');
    expect(marker.getAttribute('aria-label')).to.equal(`Source 1: <img src=x onerror="window.__trap('source-name')"> · page 3 · 99% relevant`);
    (marker as HTMLButtonElement).click();
    expect(chat.shadowRoot!.activeElement).to.equal(sources[0]);
    expect(trapped).to.deep.equal([]);
  });

  it('renderMarkdown alone (as used for restored answers) is just as strict', async () => {
    const holder = document.createElement('div');
    holder.append(...renderMarkdown(HOSTILE_ANSWER.answer));
    document.body.append(holder);
    await sleep(200);
    holder.remove();
    expect(trapped).to.deep.equal([]);
    expect(dangers(holder)).to.deep.equal([]);
  });

  it('streamed in small fragments, no render shows anything dangerous and nothing runs', async () => {
    const holder = document.createElement('div');
    document.body.append(holder);
    const view = new IncrementalMarkdown(holder, { schedule: () => 0, cancel: () => {} });
    let state = 7;
    const text = HOSTILE_ANSWER.answer;
    for (let i = 0; i < text.length; ) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      const size = 1 + ((state >>> 8) % 9);
      view.append(text.slice(i, (i += size)));
      view.flush();
      expect(dangers(holder), `after ${i} characters`).to.deep.equal([]);
    }
    await view.finish();
    await sleep(300);
    holder.remove();
    expect(dangers(holder)).to.deep.equal([]);
    expect(trapped).to.deep.equal([]);
    expect(view.stats.renders).to.be.above(100);
  });
});
