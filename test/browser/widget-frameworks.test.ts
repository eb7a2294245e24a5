import { expect } from '@open-wc/testing';
import '../../src/widget/index.js';
import { loadAnswerEngine, type KagentChat } from '../../src/widget/index.js';
import { activePart, click, expectChatUsable, expectLauncherInCorner, expectUncovered } from './host-helpers.js';
import { ask, lastAnswer, part, parts, settled, uniqueAgent, waitFor } from './widget-helpers.js';
import { setWindowSize } from './browser-window.js';
import { typeInto } from './keyboard.js';

// The chat on pages styled with the unmodified CSS (and JavaScript) of the
// frameworks sites use, loaded from their npm packages (devDependencies):
// inline in each framework's usual container and as the bubble, in columns
// of fixed width and in flex and grid columns sized by their content, on
// left-to-right and right-to-left pages, beside a Bootstrap modal. Checked by
// geometry (nothing widens, nothing covers) and by computed style (nothing
// leaks in: the chat's parts look as they do on a blank page).

const NM = '/node_modules';

interface FrameworkPage {
  name: string;
  /** Stylesheets, in order. */
  css: string[];
  /** The page's own rules beside the framework's. */
  style?: string;
  /** The body: the chat goes where `<kagent-chat>` is. */
  html: string;
  dir?: 'rtl';
  /** Its columns are sized by their content (flex items, fr tracks): what a chat's minimum width can widen. */
  contentSized?: boolean;
}

const ARTICLE = '<h1>Pricing</h1><p>Plans for teams of every size, billed monthly or yearly.</p>';
// What a site sets for an inline chat: a height (the framework gives its containers none).
const CHAT_RULE = 'kagent-chat { display: block; height: 520px; }';

const PAGES: FrameworkPage[] = [
  {
    name: 'Bootstrap 5.3: .container .row, the chat in a .col-md-4 .card',
    css: [`${NM}/bootstrap/dist/css/bootstrap.min.css`],
    html: `<div class="container py-4"><div class="row"><main class="col-md-8">${ARTICLE}</main><aside class="col-md-4"><div class="card"><div class="card-body"><kagent-chat></kagent-chat></div></div></aside></div></div>`,
  },
  {
    name: 'Bootstrap 5.3 right to left (bootstrap.rtl.css, <html dir="rtl">)',
    css: [`${NM}/bootstrap/dist/css/bootstrap.rtl.min.css`],
    html: `<div class="container py-4"><div class="row"><main class="col-md-8"><h1>תמחור</h1><p>תוכניות לצוותים בכל גודל.</p></main><aside class="col-md-4"><div class="card"><div class="card-body"><kagent-chat></kagent-chat></div></div></aside></div></div>`,
    dir: 'rtl',
  },
  {
    name: 'Tailwind 4: a max-w-5xl container, grid-cols-3, the chat in a rounded bordered aside',
    css: ['/frameworks/tailwind.css'],
    html: `<div class="mx-auto max-w-5xl p-6"><div class="grid grid-cols-3 gap-6"><article class="col-span-2 prose">${ARTICLE}</article><aside class="rounded-lg border border-gray-200 p-4 shadow-sm"><kagent-chat></kagent-chat></aside></div></div>`,
  },
  {
    name: 'Bulma 1.0: .container .columns, the chat in a .column .box (sized by its content)',
    css: [`${NM}/bulma/css/bulma.min.css`],
    html: `<section class="section"><div class="container"><div class="columns"><div class="column is-two-thirds"><div class="content">${ARTICLE}</div></div><div class="column"><div class="box"><kagent-chat></kagent-chat></div></div></div></div></section>`,
    contentSized: true,
  },
  {
    name: 'Foundation 6: .grid-container .grid-x, the chat in a .cell.medium-4 .card',
    css: [`${NM}/foundation-sites/dist/css/foundation.min.css`],
    html: `<div class="grid-container"><div class="grid-x grid-margin-x"><main class="cell medium-8">${ARTICLE}</main><aside class="cell medium-4"><div class="card"><div class="card-section"><kagent-chat></kagent-chat></div></div></aside></div></div>`,
  },
  {
    name: 'Pico 2: main.container .grid, the chat in an article',
    css: [`${NM}/@picocss/pico/css/pico.min.css`],
    html: `<main class="container"><div class="grid"><article>${ARTICLE}</article><article><kagent-chat></kagent-chat></article></div></main>`,
  },

  {
    name: 'normalize.css: a grid-template-columns: 2fr 1fr layout (columns sized by content)',
    css: [`${NM}/normalize.css/normalize.css`],
    style: '.layout { display: grid; grid-template-columns: 2fr 1fr; gap: 24px; max-width: 1100px; margin: 0 auto; padding: 16px; }',
    html: `<div class="layout"><article>${ARTICLE}</article><aside><kagent-chat></kagent-chat></aside></div>`,
    contentSized: true,
  },
  {
    name: 'water.css: a flex row of flex: 2 and flex: 1 (columns sized by content)',
    css: [`${NM}/water.css/out/water.min.css`],
    style: '.row { display: flex; gap: 24px; } .row > article { flex: 2; } .row > aside { flex: 1; }',
    html: `<div class="row"><article>${ARTICLE}</article><aside><kagent-chat></kagent-chat></aside></div>`,
    contentSized: true,
  },
  {
    name: 'normalize.css right to left: the 2fr 1fr grid on a <html dir="rtl"> page',
    css: [`${NM}/normalize.css/normalize.css`],
    style: '.layout { display: grid; grid-template-columns: 2fr 1fr; gap: 24px; padding: 16px; }',
    html: `<div class="layout"><article><h1>تسعير</h1><p>خطط لكل الفرق.</p></article><aside><kagent-chat></kagent-chat></aside></div>`,
    dir: 'rtl',
    contentSized: true,
  },
];

const ROOT = 'framework-test-root';

async function load(element: HTMLLinkElement | HTMLScriptElement): Promise<void> {
  element.classList.add(ROOT);
  await new Promise((resolve, reject) => {
    element.addEventListener('load', resolve, { once: true });
    element.addEventListener('error', () => reject(new Error(`could not load ${'href' in element ? element.href : element.src}`)), { once: true });
    document.head.append(element);
  });
}

/** The page: the framework's CSS, the page's own rules, its body; returns the chat, set up as `attributes` say. */
async function frameworkPage(page: FrameworkPage | undefined, attributes: Record<string, string>): Promise<KagentChat> {
  for (const href of page?.css ?? []) await load(Object.assign(document.createElement('link'), { rel: 'stylesheet', href }));
  const style = Object.assign(document.createElement('style'), { className: ROOT, textContent: `${CHAT_RULE}\n${page?.style ?? ''}` });
  document.head.append(style);
  if (page?.dir) document.documentElement.dir = page.dir;
  const root = Object.assign(document.createElement('div'), { className: ROOT });
  root.innerHTML = page?.html ?? '<div style="width: 400px"><kagent-chat></kagent-chat></div>';
  document.body.append(root);
  const chat = root.querySelector('kagent-chat')! as KagentChat;
  for (const [name, value] of Object.entries(attributes)) chat.setAttribute(name, value);
  await chat.updateComplete;
  return chat;
}

function clearPage(): void {
  for (const node of document.querySelectorAll(`.${ROOT}, kagent-chat, .modal-backdrop`)) node.remove();
  document.documentElement.removeAttribute('dir');
  document.body.removeAttribute('class');
  document.body.removeAttribute('style');
  scrollTo(0, 0);
}

/** An answer with what widens a column: a long line of code, a wide table; and inline code. */
const WIDE_ANSWER = [
  'Set the variable, then start the proxy: `KAGENT_AGENT_IDS = "clx0agent0id"`.',
  '',
  '```sh',
  'KAGENT_AGENT_IDS="clx0agent0id0000000000001,clx0agent0id0000000000002,clx0agent0id0000000000003" npx kagent-proxy --port 8787',
  '```',
  '',
  '| Platform | Runtime | Configuration |',
  '| --- | --- | --- |',
  '| Cloudflare Workers | workerd | Platform-specific configuration applies everywhere |',
  '| Vercel Edge Functions | edge-runtime | Environment variables from the dashboard |',
].join('\n');

/** Hebrew prose around inline code and a code block, as a right-to-left site's answers read. */
const RTL_ANSWER = ["הגדירו את `KAGENT_IDS=\"clx0agent0id\"` בקובץ ההגדרות.", "", "```sh", "KAGENT_AGENT_IDS=\"clx0agent0id0000000000001,clx0agent0id0000000000002\" npx kagent-proxy --port 8787", "```"].join("\n");

/** Asks `markdown` and waits for it as the answer (the scripted service's `echo` scenario streams the question back). */
async function askEcho(chat: KagentChat, markdown: string): Promise<void> {
  await ask(chat, markdown);
  await settled(chat);
  await waitFor(() => lastAnswer(chat)?.querySelector('pre'), 'the answer with its code block');
}

/** The page scrolls sideways (its content is wider than the window). */
const pageScrollsSideways = () => document.scrollingElement!.scrollWidth > document.documentElement.clientWidth + 1;

/** The words (runs of letters and digits: a line may break after a hyphen) of `element`'s text drawn across two lines. */
function brokenWords(element: Element): string[] {
  const broken: string[] = [];
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  for (let text = walker.nextNode() as Text | null; text; text = walker.nextNode() as Text | null) {
    for (const match of text.data.matchAll(/[\p{L}\p{N}]+/gu)) {
      const range = document.createRange();
      range.setStart(text, match.index);
      range.setEnd(text, match.index + match[0].length);
      // (WebKit adds an empty box at the end of the line before a word that starts a line.)
      const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (tops.size > 1) broken.push(match[0]);
    }
  }
  return broken;
}

/** Properties a page's CSS could leak into the chat's boxes, and the chat's own look depends on. */
const PROPERTIES = [
  'color', 'background-color', 'font-family', 'font-size', 'font-weight', 'font-style', 'line-height', 'letter-spacing',
  'word-spacing', 'text-transform', 'text-align', 'text-indent', 'text-decoration-line', 'text-shadow', 'white-space',
  'direction', 'border-top-width', 'border-top-style', 'border-top-color', 'border-left-width', 'border-left-style',
  'border-top-left-radius', 'padding-top', 'padding-right', 'padding-bottom', 'padding-left', 'margin-top', 'margin-bottom',
  'box-shadow', 'box-sizing', 'display', 'list-style-type', 'vertical-align', 'cursor', 'opacity', 'visibility',
  'outline-style', 'overflow-x', 'position', 'tab-size', 'font-variant-ligatures', 'hyphens',
];

/** Every element of the chat's shadow tree, by its place in the tree, with the computed values of `PROPERTIES`. */
function chatStyles(chat: KagentChat): Map<string, Record<string, string>> {
  const styles = new Map<string, Record<string, string>>();
  const walk = (node: Element, path: string) => {
    let index = 0;
    for (const child of node.children) {
      if (child.localName === 'style') continue;
      const key = `${path}/${child.localName}${child.getAttribute('part') ? `[${child.getAttribute('part')}]` : ''}#${index++}`;
      const computed = getComputedStyle(child);
      styles.set(key, Object.fromEntries(PROPERTIES.map((name) => [name, computed.getPropertyValue(name)])));
      walk(child, key);
    }
  };
  walk(chat.shadowRoot as unknown as Element, '');
  return styles;
}

/** The differences between two style maps, as lines a failure message can show. */
function styleDifferences(blank: Map<string, Record<string, string>>, framed: Map<string, Record<string, string>>): string[] {
  const lines: string[] = [];
  for (const [key, values] of blank) {
    const other = framed.get(key);
    if (!other) {
      lines.push(`${key}: missing`);
      continue;
    }
    for (const name of PROPERTIES) if (values[name] !== other[name]) lines.push(`${key} ${name}: ${values[name]} on a blank page, ${other[name]} here`);
  }
  return lines;
}

describe('<kagent-chat> on pages of CSS frameworks', () => {
  /** The chat's look on a blank page, answered with WIDE_ANSWER: what every framework page is compared with. */
  let blank: Map<string, Record<string, string>>;
  before(async () => {
    clearPage();
    await setWindowSize(1280, 800);
    const chat = await frameworkPage(undefined, { 'agent-id': uniqueAgent('fw-blank'), endpoint: '/scripted/widget/text-echo-40' });
    await askEcho(chat, WIDE_ANSWER);
    blank = chatStyles(chat);
    expect(blank.size, 'parts of the answered chat').to.be.greaterThan(15);
    clearPage();
  });
  beforeEach(async () => {
    localStorage.clear();
    clearPage();
    await setWindowSize(1280, 800);
  });
  afterEach(clearPage);

  for (const page of PAGES) {
    describe(page.name, () => {
      it('inline: in its column, usable, and after an answer looks as on a blank page', async () => {
        const chat = await frameworkPage(page, { 'agent-id': uniqueAgent('fw-inline'), endpoint: '/scripted/widget/text-echo-40' });
        part(chat, 'base')!.scrollIntoView({ block: 'start' });
        const box = chat.parentElement!;
        const content = box.clientWidth - parseFloat(getComputedStyle(box).paddingLeft) - parseFloat(getComputedStyle(box).paddingRight);
        expect(Math.round(part(chat, 'base')!.getBoundingClientRect().width), 'the chat fills its container').to.equal(Math.round(content));
        expectChatUsable(chat);
        await askEcho(chat, WIDE_ANSWER);
        expectUncovered(chat, lastAnswer(chat)!, 'the answer', part(chat, 'transcript')!);
        if (!page.dir) {
          const differences = styleDifferences(blank, chatStyles(chat));
          expect(differences, `computed styles that differ from a blank page:\n${differences.join('\n')}`).to.deep.equal([]);
        }
      });

      it('inline: its column keeps its width after an answer with a long line of code and a wide table, which scroll inside the chat', async () => {
        const chat = await frameworkPage(page, { 'agent-id': uniqueAgent('fw-width'), endpoint: '/scripted/widget/text-echo-40' });
        const column = chat.parentElement!.closest('aside, .column, article, [class*="col-"]') ?? chat.parentElement!;
        const before = column.getBoundingClientRect().width;
        expect(pageScrollsSideways(), 'the page scrolls sideways before any answer').to.equal(false);
        await askEcho(chat, WIDE_ANSWER);
        const after = column.getBoundingClientRect().width;
        expect(Math.round(after), `the column's width after the answer (was ${before})`).to.equal(Math.round(before));
        expect(pageScrollsSideways(), `the page scrolls sideways (${document.scrollingElement!.scrollWidth} in ${document.documentElement.clientWidth})`).to.equal(false);
        const base = part(chat, 'base')!.getBoundingClientRect();
        const answer = lastAnswer(chat)!;
        for (const [name, block] of [['the code block', answer.querySelector('pre')!], ['the table', answer.querySelector('table')!]] as const) {
          // The block, or the box that scrolls it, stays inside the chat.
          const scroller = block.closest('[part~="answer-text"] > *')!;
          const r = scroller.getBoundingClientRect();
          expect(r.left >= base.left - 1 && r.right <= base.right + 1, `${name} ${JSON.stringify(r.toJSON())} inside the chat ${JSON.stringify(base.toJSON())}`).to.equal(true);
        }
        const pre = answer.querySelector('pre')!;
        expect(pre.scrollWidth, 'the long line scrolls inside its block').to.be.greaterThan(pre.clientWidth);
        // Table cells keep their words whole: each word is drawn on one line.
        const broken = [...answer.querySelectorAll('th, td')].flatMap((cell) => brokenWords(cell));
        expect(broken, 'words of the table broken across lines').to.deep.equal([]);
      });

      it('bubble: launcher in its corner above the page, the panel usable, an answer', async () => {
        const chat = await frameworkPage(page, { mode: 'bubble', 'agent-id': uniqueAgent('fw-bubble'), endpoint: '/scripted/widget/text-echo-40' });
        expect(chat.getBoundingClientRect().height, 'the bubble takes no room on the page').to.equal(0);
        expectLauncherInCorner(chat, page.dir ? 'bottom-left' : 'bottom-right');
        await click(part(chat, 'launcher')!);
        await waitFor(() => chat.opened, 'the bubble to open');
        await chat.updateComplete;
        expect(activePart(chat)).to.equal('input');
        expectChatUsable(chat);
        await askEcho(chat, WIDE_ANSWER);
        expectChatUsable(chat);
        expect(pageScrollsSideways(), 'the page scrolls sideways').to.equal(false);
        expectUncovered(chat, lastAnswer(chat)!, 'the answer', part(chat, 'transcript')!);
      });
    });
  }
});

/** `element`'s text runs left to right: the character at `from` is drawn left of the one at `to` (both on one line). */
function drawnLeftOf(element: Element, from: number, to: number): { ok: boolean; detail: string } {
  const text = element.firstChild as Text;
  const at = (offset: number) => {
    const range = document.createRange();
    range.setStart(text, offset);
    range.setEnd(text, offset + 1);
    return range.getBoundingClientRect();
  };
  const a = at(from);
  const b = at(to);
  return { ok: a.left < b.left, detail: `"${text.data[from]}" at x=${Math.round(a.left)}, "${text.data[to]}" at x=${Math.round(b.left)} in "${text.data}"` };
}

/** The first character of the code block is inside its visible box (not scrolled or pushed out of view). */
function startOfCodeVisible(pre: HTMLElement): { ok: boolean; detail: string } {
  const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
  const text = walker.nextNode() as Text;
  const range = document.createRange();
  range.setStart(text, 0);
  range.setEnd(text, 1);
  const first = range.getBoundingClientRect();
  const box = pre.getBoundingClientRect();
  return { ok: first.left >= box.left - 1 && first.right <= box.right + 1, detail: `"${text.data[0]}" at ${Math.round(first.left)}-${Math.round(first.right)}, the block ${Math.round(box.left)}-${Math.round(box.right)}, scrollLeft ${pre.scrollLeft}` };
}

describe('<kagent-chat> on right-to-left pages', () => {
  beforeEach(async () => {
    localStorage.clear();
    clearPage();
    await setWindowSize(1280, 800);
  });
  afterEach(clearPage);

  for (const page of PAGES.filter((p) => p.dir === 'rtl')) {
    it(`${page.name}: code reads left to right from its start; answers and the empty state take their own text's direction`, async () => {
      const chat = await frameworkPage(page, { 'agent-id': uniqueAgent('fw-rtl'), endpoint: '/scripted/widget/text-echo-40' });
      const empty = chat.shadowRoot!.querySelector('.empty')!;
      expect(getComputedStyle(empty).direction, `the English empty state "${empty.textContent}"`).to.equal('ltr');

      await askEcho(chat, WIDE_ANSWER);
      const english = lastAnswer(chat)!;
      expect(getComputedStyle(english.querySelector('p')!).direction, 'an English answer').to.equal('ltr');
      await askEcho(chat, RTL_ANSWER);
      const hebrew = lastAnswer(chat)!;
      expect(getComputedStyle(hebrew.querySelector('p')!).direction, 'a Hebrew answer').to.equal('rtl');

      for (const [name, answer] of [['English', english], ['Hebrew', hebrew]] as const) {
        const pre = answer.querySelector('pre')!;
        expect(getComputedStyle(pre).direction, `the code block of the ${name} answer`).to.equal('ltr');
        const start = startOfCodeVisible(pre);
        expect(start.ok, `the start of the ${name} answer's code: ${start.detail}`).to.equal(true);
      }
      // Inline code inside right-to-left prose: KAGENT_AGENT_IDS before its value, as written.
      const code = hebrew.querySelector('p code')!;
      const order = drawnLeftOf(code, 0, code.textContent!.indexOf('clx'));
      expect(order.ok, `inline code in Hebrew prose: ${order.detail}`).to.equal(true);
    });
  }
});

/** The element is drawn and hit where it is: hit testing at its centre finds it (or something inside it). */
function expectOnTop(element: Element, what: string): void {
  const r = element.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  expect(hit !== null && (hit === element || element.contains(hit)), `${what}: its centre hits ${hit ? `<${hit.localName} class="${hit.className}">` : 'nothing'}`).to.equal(true);
}

/** The bubble's layer (launcher and panel) is not drawn. */
const bubbleHidden = (chat: KagentChat) => !part(chat, 'launcher')!.checkVisibility() && !part(chat, 'base')!.checkVisibility();

const MODAL_FORM = '<label>Email <input type="email" class="site-email"></label><button type="button" class="site-save">Save</button>';

describe('<kagent-chat> and the site\'s own modals', () => {
  beforeEach(async () => {
    localStorage.clear();
    clearPage();
    await setWindowSize(1024, 768);
  });
  afterEach(clearPage);

  /** A bubble, opened by a click, on the Bootstrap page. */
  async function openBubble(): Promise<KagentChat> {
    const chat = await frameworkPage(PAGES[0], { mode: 'bubble', 'agent-id': uniqueAgent('fw-modal'), endpoint: '/scripted/widget/answer' });
    await click(part(chat, 'launcher')!);
    await waitFor(() => chat.opened, 'the bubble to open');
    await chat.updateComplete;
    expectChatUsable(chat);
    return chat;
  }

  /** While the modal is open: the chat is not drawn, the modal's field and button are on top and take a real click and typing. */
  async function expectModalUsable(chat: KagentChat, modal: Element): Promise<void> {
    await waitFor(() => bubbleHidden(chat), 'the chat to step back');
    expectOnTop(modal.querySelector('.site-save')!, "the modal's Save button");
    expectOnTop(modal.querySelector('.site-email')!, "the modal's email field");
    const email = modal.querySelector<HTMLInputElement>('.site-email')!;
    await click(email);
    await typeInto(email, 'me@example.com');
  }

  /** After the modal closed: the chat is back as it was, open and usable. */
  async function expectChatBack(chat: KagentChat): Promise<void> {
    await waitFor(() => part(chat, 'base')!.checkVisibility(), 'the chat to come back');
    expect(chat.opened).to.equal(true);
    expectChatUsable(chat);
    expectLauncherInCorner(chat);
  }

  it('a Bootstrap modal shown by its own JavaScript over the open bubble: the chat steps back, the modal takes clicks and typing, the chat comes back when it closes', async () => {
    await load(Object.assign(document.createElement('script'), { src: `${NM}/bootstrap/dist/js/bootstrap.bundle.min.js` }));
    const chat = await openBubble();
    const modal = Object.assign(document.createElement('div'), { className: `modal fade ${ROOT}`, tabIndex: -1 });
    modal.innerHTML = `<div class="modal-dialog"><div class="modal-content"><div class="modal-header"><h5 class="modal-title">Subscribe</h5><button type="button" class="btn-close" data-bs-dismiss="modal" aria-label="Close"></button></div><div class="modal-body">${MODAL_FORM}</div></div></div>`;
    document.body.append(modal);
    const bootstrap = (window as unknown as { bootstrap: { Modal: { getOrCreateInstance(element: Element): { show(): void; hide(): void } } } }).bootstrap;
    const shown = new Promise((resolve) => modal.addEventListener('shown.bs.modal', resolve, { once: true }));
    bootstrap.Modal.getOrCreateInstance(modal).show();
    await shown;
    await expectModalUsable(chat, modal);
    const hidden = new Promise((resolve) => modal.addEventListener('hidden.bs.modal', resolve, { once: true }));
    bootstrap.Modal.getOrCreateInstance(modal).hide();
    await hidden;
    await expectChatBack(chat);
  });

  it('a modal <dialog> (showModal) over the open bubble: the chat steps back and comes back when it closes', async () => {
    const chat = await openBubble();
    const dialog = Object.assign(document.createElement('dialog'), { className: ROOT });
    dialog.innerHTML = MODAL_FORM;
    document.body.append(dialog);
    dialog.showModal();
    await expectModalUsable(chat, dialog);
    dialog.close();
    await expectChatBack(chat);
  });

  it('a modal <dialog> while the bubble is closed: the launcher steps back (it would sit above the modal\'s backdrop) and comes back, the chat still closed', async () => {
    const chat = await frameworkPage(PAGES[0], { mode: 'bubble', 'agent-id': uniqueAgent('fw-modal-closed'), endpoint: '/scripted/widget/answer' });
    // What loads at idle on a real page: the second part, which watches for the page's modals.
    await loadAnswerEngine();
    await chat.updateComplete;
    expectLauncherInCorner(chat);
    const dialog = Object.assign(document.createElement('dialog'), { className: ROOT });
    dialog.innerHTML = MODAL_FORM;
    document.body.append(dialog);
    dialog.showModal();
    await waitFor(() => !part(chat, 'launcher')!.checkVisibility(), 'the launcher to step back');
    dialog.close();
    await waitFor(() => part(chat, 'launcher')!.checkVisibility(), 'the launcher to come back');
    expect(chat.opened).to.equal(false);
    expectLauncherInCorner(chat);
  });

  it('a site\'s own aria-modal dialog with the rest of the page inert: the chat steps back and comes back when it closes', async () => {
    const chat = await openBubble();
    const modal = Object.assign(document.createElement('div'), { className: `${ROOT}` });
    modal.setAttribute('role', 'dialog');
    modal.setAttribute('aria-modal', 'true');
    modal.style.cssText = 'position: fixed; inset: 20% 25%; background: white; padding: 24px; z-index: 1000; box-shadow: 0 0 0 100vmax rgb(0 0 0 / 0.5)';
    modal.innerHTML = MODAL_FORM;
    const page = document.querySelector(`div.${ROOT}`)!;
    page.setAttribute('inert', '');
    document.body.append(modal);
    await expectModalUsable(chat, modal);
    modal.remove();
    page.removeAttribute('inert');
    await expectChatBack(chat);
  });
});
