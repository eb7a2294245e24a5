import './sanitizer-ready.js';
import { expect } from '@open-wc/testing';
import { IncrementalMarkdown, renderMarkdown, renderMarkdownSoFar } from '../../src/widget/index.js';
import { linkCitationMarkers } from '../../src/widget/answer-engine/citation-markers.js';
import { fragmentsOf, markdownAnswer } from '../support/scripted-service.js';
import { randomCuts } from '../support/random-cuts.js';

/** The DOM that rendering `text` at once gives, as HTML. */
function wholeRender(text: string): string {
  const holder = document.createElement('div');
  holder.append(...renderMarkdown(text));
  return holder.innerHTML;
}

/** Streams `fragments` with a render after each, as if every fragment had its own frame. */
async function streamRender(fragments: string[]): Promise<{ html: string; view: IncrementalMarkdown }> {
  const holder = document.createElement('div');
  const view = new IncrementalMarkdown(holder, { schedule: () => 0, cancel: () => {} });
  for (const fragment of fragments) {
    view.append(fragment);
    view.flush();
  }
  await view.finish();
  return { html: holder.innerHTML, view };
}


// Texts whose meaning changes as later characters arrive: each is a trap for a renderer that freezes blocks too early.
const TRICKY = [
  'para\n#not a heading after all',
  'para\n```a`b\nstill para',
  'para\n---\nnext',
  'para\n===\n\nafter the heading',
  'Title\n-\n\ntext',
  '1. one\n\n2. two\n\n3. three\n\nafter',
  '- a\n\n  continued in the item\n- b\n\nout',
  '- a\n- b\n\n- c (loose now)\n\ntail',
  '> quote\nlazy continuation\n\nout',
  '| a | b |\n| --- | --- |\n| 1 | 2 |\nrow without pipes\n\nafter table',
  'before\n\n```js\nconst x = 1;\n\nconst y = 2;\n```\n\nafter code',
  '    indented code\n\n    more code\n\npara',
  'See [the guide][g] and [1].\n\nMore text.\n\n[g]: https://example.com/guide "Guide"\n\nEnd [g].',
  'Line with trailing spaces  \nhard break\r\nwindows line\rold mac line',
  '*emphasis that* closes **later and later** ~~struck~~ `code with * star`',
  'Autolinks www.example.com and https://example.com/path?q=1 and mail@example.com.',
  '<div>\nraw html block\n</div>\n\n<b>inline</b> html',
  '- [ ] task\n- [x] done task',
  'Ünïcödé ✓ 🎉 and combining é and 中文 text\n\n## 見出し',
  // After a blank line only a list or indented code takes in the next line: the block above may be frozen early.
  'para\n\n===\nafter\n\n---\nend',
  '> quote\n\n> another quote\n\n    code after a blank\n\n    still code\n\ntext',
  '1. item\n\n   continued item\n\n2. next\n\n  x\n\n| a |\n| - |\n| 1 |\n\n| b |\nlast',
  '<div>\nhtml\n\nafter html\n\n```\nfenced\n\nstill fenced\n```\n\n- a\n\n      indented in list',
];

describe('incremental markdown rendering', () => {
  it('ends with exactly the DOM of rendering the whole answer at once, for tricky texts cut anywhere', async () => {
    for (const [index, text] of TRICKY.entries()) {
      for (const seed of [1, 2, 3]) {
        const { html } = await streamRender(randomCuts(text, seed * 7919 + index, 9));
        expect(html, `${JSON.stringify(text)} cut with seed ${seed}`).to.equal(wholeRender(text));
      }
      // One character at a time is the harshest cut.
      const { html } = await streamRender([...text]);
      expect(html, `${JSON.stringify(text)} one character at a time`).to.equal(wholeRender(text));
    }
  });

  it('ends with the whole-render DOM for long generated answers', async () => {
    for (const seed of [1, 2, 3, 4]) {
      const text = markdownAnswer(6000, seed);
      const { html } = await streamRender(fragmentsOf(text, 1500));
      expect(html, `answer seed ${seed}`).to.equal(wholeRender(text));
    }
  });

  it('does not lex complete blocks again: the work per render stays bounded as the answer grows', async () => {
    const text = markdownAnswer(40_000, 5);
    const { view } = await streamRender(fragmentsOf(text, 8000));
    // Each render lexes only the open tail: a block or two, never the answer so far.
    expect(view.stats.maxLexedChars).to.be.below(2000);
    expect(view.stats.lexedChars / view.stats.renders).to.be.below(700);
  });

  it('shows, after every render, what rendering the text so far at once gives, open block healed (updated in place)', () => {
    // (Except a reference definition still being written: it applies to blocks above it once it is complete.)
    for (const [index, text] of TRICKY.filter((text) => !text.includes(']: ')).entries()) {
      const holder = document.createElement('div');
      const view = new IncrementalMarkdown(holder, { schedule: () => 0, cancel: () => {} });
      for (const fragment of randomCuts(text, 31 + index)) {
        view.append(fragment);
        view.flush();
        const soFar = document.createElement('div');
        soFar.append(...renderMarkdownSoFar(view.text));
        expect(holder.innerHTML, `${JSON.stringify(view.text)} of ${JSON.stringify(text)}`).to.equal(soFar.innerHTML);
      }
    }
  });

  it('keeps the nodes of the open block that did not change, so the browser redoes only what changed', () => {
    const holder = document.createElement('div');
    const view = new IncrementalMarkdown(holder, { schedule: () => 0, cancel: () => {} });
    view.append('Intro.\n\n- first item\n- second it');
    view.flush();
    const [first, second] = holder.querySelectorAll('li');
    const secondText = second!.firstChild;
    view.append('em grows\n- third');
    view.flush();
    const items = holder.querySelectorAll('li');
    expect(items).to.have.length(3);
    // The same nodes, not equal copies: the first item is untouched, the second only had its text changed.
    expect(items[0]).to.equal(first);
    expect(items[1]).to.equal(second);
    expect(items[1]!.firstChild).to.equal(secondText);
    expect(secondText!.nodeValue).to.equal('second item grows');
  });

  it('renders at most once per animation frame, however many fragments arrive', async () => {
    const holder = document.createElement('div');
    const view = new IncrementalMarkdown(holder);
    for (const fragment of fragmentsOf(markdownAnswer(3000, 2), 500)) view.append(fragment);
    expect(view.stats.renders).to.equal(0);
    const renders: number[] = [];
    for (let frame = 0; frame < 4; frame++) {
      await new Promise((resolve) => requestAnimationFrame(resolve));
      renders.push(view.stats.renders);
    }
    // 500 fragments, one render in the first frame; the rest of the backlog at most one render a frame.
    expect(renders[0]).to.equal(1);
    for (let frame = 1; frame < renders.length; frame++) expect(renders[frame]! - renders[frame - 1]!).to.be.at.most(1);
    expect(holder.textContent!.length).to.be.above(1000);
  });

  it('spreads a large burst over several frames so no render takes on more than a slice', async () => {
    const holder = document.createElement('div');
    const text = markdownAnswer(50_000, 6);
    const view = new IncrementalMarkdown(holder);
    view.append(text);
    await view.finish();
    expect(view.stats.renders).to.be.above(5);
    expect(view.stats.maxLexedChars).to.be.at.most(8000);
    expect(holder.innerHTML).to.equal(wholeRender(text));
  });

  it('takes a block longer than a slice by doubling the slice, not by lexing all the rest at once', async () => {
    const holder = document.createElement('div');
    // A 12,000-character code block, then 40,000 characters of ordinary answer behind it.
    const code = '```\n' + Array.from({ length: 400 }, (_, i) => `line ${i} ${'x'.repeat(20)}`).join('\n') + '\n```\n\n';
    const text = code + markdownAnswer(40_000, 4);
    const view = new IncrementalMarkdown(holder, { maxCharsPerRender: 2000 });
    view.append(text);
    await view.finish();
    // Twice the block at most (the slice doubles past it), never the 52,000 characters in one go.
    expect(view.stats.maxLexedChars).to.be.at.least(code.length);
    expect(view.stats.maxLexedChars).to.be.below(2 * code.length + 2000);
    expect(holder.innerHTML).to.equal(wholeRender(text));
  });

  it('shrinks the slice of a backlog while renders run slow, and takes on more while they run fast', async () => {
    const text = markdownAnswer(30_000, 8);
    // The renderer times each render with performance.now(): a clock the test moves, so the outcome does not depend
    // on how busy the machine is (a render of 1,500 characters on a loaded machine can take as long as a slow device's).
    const realNow = performance.now;
    let clock = 0;
    performance.now = () => clock;
    const lexedPerRender = async (renderMs: number) => {
      const holder = document.createElement('div');
      const lexed: number[] = [];
      let before = 0;
      const view: IncrementalMarkdown = new IncrementalMarkdown(holder, {
        // The clock stands still between renders, so no wait between them depends on it.
        minInterval: 0,
        // A slow device, or a view that is costly to lay out: each render takes renderMs.
        onRender: () => {
          clock += renderMs;
          lexed.push(view.stats.lexedChars - before);
          before = view.stats.lexedChars;
        },
      });
      view.append(text);
      await view.finish();
      expect(holder.innerHTML).to.equal(wholeRender(text));
      return lexed;
    };
    let slow: number[], fast: number[];
    try {
      slow = await lexedPerRender(40);
      fast = await lexedPerRender(1);
    } finally {
      performance.now = realNow;
    }
    // Slow renders: slices fall towards the smallest (500 characters, a block more at most).
    expect(Math.min(...slow.slice(1, -1))).to.be.below(1500);
    expect(slow.length).to.be.above(fast.length * 2);
    // Fast renders: slices grow past the first one (1,500) up to the largest (6,000).
    expect(Math.max(...fast)).to.be.above(3000);
  });

  it('links open in a new tab without opener or referrer; images load lazily without referrer', () => {
    const holder = document.createElement('div');
    holder.append(...renderMarkdown('[site](https://example.com) ![alt](https://example.com/a.png) <https://auto.example.com>'));
    for (const link of holder.querySelectorAll('a')) {
      expect(link.getAttribute('target')).to.equal('_blank');
      expect(link.getAttribute('rel')).to.equal('noopener noreferrer');
    }
    expect(holder.querySelectorAll('a')).to.have.length(2);
    const image = holder.querySelector('img')!;
    expect(image.getAttribute('referrerpolicy')).to.equal('no-referrer');
  });

  it('keeps the harmless attributes markdown makes: list start, table alignment, code language', () => {
    const holder = document.createElement('div');
    holder.append(...renderMarkdown('3. three\n4. four\n\n| left | right |\n| :--- | ---: |\n| a | b |\n\n```ts\nx\n```'));
    expect(holder.querySelector('ol')!.getAttribute('start')).to.equal('3');
    expect([...holder.querySelectorAll('th')].map((th) => th.getAttribute('align'))).to.deep.equal(['left', 'right']);
    expect(holder.querySelector('code')!.className).to.equal('language-ts');
  });

  it('keeps task-list boxes, never editable', () => {
    const holder = document.createElement('div');
    holder.append(...renderMarkdown('- [x] done\n- [ ] to do'));
    const boxes = [...holder.querySelectorAll('input')];
    expect(boxes.map((box) => [box.type, box.checked, box.disabled])).to.deep.equal([
      ['checkbox', true, true],
      ['checkbox', false, true],
    ]);
  });
});

/**
 * A clock the test moves: `performance.now`, `setTimeout` and animation frames
 * (every 16 ms) stand still until `advance` runs them, so the pacing of updates
 * is checked exactly, whatever else the machine is doing.
 */
function fakeClock() {
  const real = { now: performance.now, setTimeout: window.setTimeout, clearTimeout: window.clearTimeout };
  let now = 0;
  let ids = 0;
  const timers = new Map<number, { at: number; run: () => void }>();
  const frames = new Map<number, () => void>();
  performance.now = () => now;
  window.setTimeout = ((run: () => void, ms = 0) => (timers.set(++ids, { at: now + Math.max(0, ms), run }), ids)) as typeof setTimeout;
  window.clearTimeout = ((id?: number) => void timers.delete(id!)) as typeof clearTimeout;
  const clock = {
    get now() {
      return now;
    },
    /** Moves time on (also from inside a render: a render that takes that long). */
    spend(ms: number) {
      now += ms;
    },
    schedule: (render: () => void) => (frames.set(++ids, render), ids),
    cancel: (id: number) => void frames.delete(id),
    /** Runs the timers and frames due until `until`, a millisecond at a time. */
    advance(until: number) {
      while (now < until) {
        now++;
        for (const [id, timer] of [...timers].filter(([, t]) => t.at <= now)) {
          timers.delete(id);
          timer.run();
        }
        if (now % 16 === 0) {
          const due = [...frames.values()];
          frames.clear();
          for (const render of due) render();
        }
      }
    },
    restore() {
      Object.assign(performance, { now: real.now });
      Object.assign(window, { setTimeout: real.setTimeout, clearTimeout: real.clearTimeout });
    },
  };
  return clock;
}

/** Streams `text` at `charsPerSecond` in fragments of `fragment` characters on a fake clock; the time of each render that took on text, and the text's length then. */
function pacedStream(text: string, charsPerSecond: number, fragment: number, renderMs = 0) {
  const clock = fakeClock();
  try {
    const holder = document.createElement('div');
    const updates: { at: number; length: number }[] = [];
    let view!: IncrementalMarkdown;
    const schedule = (render: () => void) =>
      clock.schedule(() => {
        const before = view.stats.renders;
        const at = clock.now;
        render();
        if (view.stats.renders > before) updates.push({ at, length: view.text.length });
      });
    view = new IncrementalMarkdown(holder, { schedule, cancel: clock.cancel, onRender: () => clock.spend(renderMs) });
    const arrivals: { at: number; length: number }[] = [];
    for (let sent = 0; sent < text.length; sent += fragment) {
      clock.advance(Math.ceil((sent * 1000) / charsPerSecond));
      view.append(text.slice(sent, sent + fragment));
      arrivals.push({ at: clock.now, length: Math.min(text.length, sent + fragment) });
    }
    const lastArrival = clock.now;
    // The answer ends in the middle of a pause: its last words must show at once, not when the pause is over.
    void view.finish();
    return { holder, view, updates, arrivals, lastArrival, shownAtEnd: holder.innerHTML, finishedAt: clock.now };
  } finally {
    clock.restore();
  }
}

describe('incremental markdown, how often updates come', () => {
  const answer = markdownAnswer(8000, 1);

  it('shows the first words in the first frame, and the last words as soon as the answer ends', () => {
    const { updates, arrivals, shownAtEnd, finishedAt, lastArrival } = pacedStream(answer, 4000, 4);
    expect(updates[0]!.at - arrivals[0]!.at).to.be.at.most(16);
    expect(finishedAt).to.equal(lastArrival);
    expect(shownAtEnd).to.equal(wholeRender(answer));
  });

  it('at a fast model\'s pace (4,000 characters a second) updates at most 4 times a second, yet at least twice', () => {
    const { updates } = pacedStream(answer, 4000, 4);
    // 2 seconds: at ten updates a second (the pace for slower text) this would be 20.
    expect(updates.length, updates.map((u) => u.at).join(' ')).to.be.at.most(8);
    const gaps = updates.slice(1).map((update, i) => update.at - updates[i]!.at);
    expect(Math.max(...gaps)).to.be.at.most(500 + 16);
  });

  it('at a typical pace (400 characters a second) and slower, shows every fragment within 100 ms (and a frame)', () => {
    for (const [charsPerSecond, fragment] of [
      [400, 4],
      [100, 10],
      [20, 7],
    ] as const) {
      const text = answer.slice(0, 800);
      const { updates, arrivals, lastArrival } = pacedStream(text, charsPerSecond, fragment);
      // (What arrives in the last 116 ms shows when the answer ends: the test above.)
      for (const arrival of arrivals.filter((a) => a.at < lastArrival - 116)) {
        const shown = updates.find((update) => update.length >= arrival.length);
        expect(shown, `${charsPerSecond}/s: ${arrival.length} characters`).to.not.equal(undefined);
        expect(shown!.at - arrival.at, `${charsPerSecond}/s: ${arrival.length} characters`).to.be.at.most(100 + 16);
      }
    }
  });

  it('new words after a silence show in the next frame, however fast the text came before it', () => {
    const clock = fakeClock();
    try {
      const holder = document.createElement('div');
      const view = new IncrementalMarkdown(holder, { schedule: clock.schedule, cancel: clock.cancel });
      // 4,000 characters in a second, then a two-second silence.
      for (let i = 0; i < 1000; i++) {
        clock.advance(i);
        view.append(answer.slice(4 * i, 4 * i + 4));
      }
      clock.advance(3000);
      const renders = view.stats.renders;
      view.append(' More words');
      clock.advance(3016);
      expect(view.stats.renders).to.equal(renders + 1);
      expect(holder.textContent).to.match(/More words\s*$/);
    } finally {
      clock.restore();
    }
  });

  it('keeps rendering to about a tenth of the time when renders run slow (30 ms each, a slow phone)', () => {
    const text = answer.slice(0, 3000);
    const { updates } = pacedStream(text, 400, 4, 30);
    const span = updates.at(-1)!.at - updates[0]!.at;
    // Each render takes 30 ms: at the 100 ms pace that would be 23% of the time.
    expect((30 * (updates.length - 1)) / span).to.be.at.most(0.12);
  });
});

describe('citation markers of a long answer', () => {
  const citations = [1, 2].map((number) => ({ number, url: `https://example.com/${number}`, description: `Source ${number}`, label: `Source ${number}` }));

  it('are linked a slice per frame, never all in one task, and all of them in the end', async () => {
    const text = markdownAnswer(50_000, 9) + '\n\n```\ncode keeps [1]\n```\n\nLast words [2] and [3].';
    const holder = document.createElement('div');
    holder.append(...renderMarkdown(text));
    const expected = (text.match(/\[[12]\]/g) ?? []).length - 1;
    // Every look at the clock costs a millisecond: linking a marker's text "takes" 1 ms, so a slice holds about 8 of them.
    const realNow = performance.now;
    let clock = 0;
    let frames = 0;
    let counting = true;
    const countFrames = () => {
      frames++;
      if (counting) requestAnimationFrame(countFrames);
    };
    requestAnimationFrame(countFrames);
    performance.now = () => ++clock;
    let linking: Promise<void>;
    try {
      linking = linkCitationMarkers(holder, citations);
      // The first slice is linked before the call returns; the rest waits for frames.
      expect(holder.querySelectorAll('.citation').length).to.be.above(0).and.below(expected);
      await linking;
    } finally {
      performance.now = realNow;
      counting = false;
    }
    expect(frames).to.be.at.least(Math.floor(expected / 10));
    expect(holder.querySelectorAll('.citation')).to.have.length(expected);
    expect([...holder.querySelectorAll('pre')].at(-1)!.textContent).to.contain('code keeps [1]');
    expect(holder.lastElementChild!.textContent).to.equal('Last words 2Source 2 and [3].');
  });
});
