import { expect } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import { agentLog, uniqueAgent } from './widget-helpers.js';

// A visitor leaves the page while an answer streams in, then comes back with
// the Back button. The chat's page is a real page in a second tab (served by
// test/support/bfcache-page.ts); the `second-page` command navigates it away
// and back. Chromium keeps it in its back/forward cache with the stream
// open, and drops it when more arrives meanwhile than it keeps for a cached
// page. Either way the question is asked once, and what is shown is the
// answer or that it was cut off, with Retry: never a half answer that waits
// for ever.

interface ChatState {
  /** pagehide/pageshow (`persisted` when from the cache), kagent-answer and kagent-error, in order. */
  lifecycle: string[];
  answer: string | null;
  answering: boolean;
  failure: string | null;
  retry: boolean;
  /** Bubble mode: the layer is in the top layer, the launcher in the window's corner, the panel open and inside the window. */
  bubble: { layer: boolean; launcherInCorner: boolean; panelShown: boolean } | null;
}

/** The chat as the visitor sees it, read in the chat's tab. */
const STATE = `(() => {
  const root = document.querySelector('kagent-chat')?.shadowRoot;
  const part = (name) => root?.querySelector('[part~="' + name + '"]');
  const answers = root ? [...root.querySelectorAll('[part~="answer-text"]')] : [];
  return {
    lifecycle: window.lifecycle,
    answer: answers.length ? answers.at(-1).textContent.trim() : null,
    answering: Boolean(part('status') || part('stop')),
    failure: part('failure') ? part('failure').dataset.kind : null,
    retry: Boolean(part('retry') && !part('retry').disabled),
    bubble: document.querySelector('kagent-chat')?.getAttribute('mode') === 'bubble' ? (() => {
      const launcher = part('launcher').getBoundingClientRect();
      const panel = part('base').getBoundingClientRect();
      return {
        layer: root.querySelector('.layer').matches(':popover-open'),
        launcherInCorner: launcher.width > 0 && launcher.right <= innerWidth && launcher.bottom <= innerHeight && innerWidth - launcher.right < 40 && innerHeight - launcher.bottom < 40,
        panelShown: !part('base').hidden && panel.height > 100 && panel.top >= 0 && panel.left >= 0 && panel.right <= innerWidth && panel.bottom <= innerHeight,
      };
    })() : null,
  };
})()`;

const command = <T>(payload: Record<string, unknown>) => executeServerCommand<T, Record<string, unknown>>('second-page', payload) as Promise<T>;

/** Waits, in the chat's tab, until `expression` is truthy; polled by the server (this page's timers may be slowed while the other tab is in front). */
async function waitIn<T>(tab: number, expression: string, what: string, timeout = 30_000): Promise<T> {
  const reply = await command<{ value?: T; error?: string }>({ action: 'wait-for', id: tab, expression, timeout });
  if (reply.error !== undefined) throw new Error(`Timed out waiting for ${what}: ${reply.error}`);
  return reply.value as T;
}

const stateOf = (tab: number) => waitIn<ChatState>(tab, STATE, 'the chat state');

/** Lets the held stream go on with `bytes` more of answer; resolves once the service has written all of it (or the page went away). */
const release = (agent: string, bytes: number) => fetch(`/scripted/widget-release/${agent}?bytes=${bytes}`, { method: 'POST' });

for (const mode of ['inline', 'bubble'] as const) describe(`<kagent-chat mode="${mode}"> and the back/forward cache: leaving the page mid-answer and coming back`, function () {
  this.timeout(60_000);
  /** Where the page came back to: the answer's place as the visitor left it (for a bubble: in the top layer, the launcher in its corner, the panel open). */
  const expectInPlace = (state: ChatState, panelOpen: boolean) => {
    if (mode === 'inline') return expect(state.bubble).to.equal(null);
    expect(state.bubble).to.deep.equal({ layer: true, launcherInCorner: true, panelShown: panelOpen });
  };
  let tab: number | undefined;
  let agent: string;

  /** The chat's page in a second tab, asking the `held` scenario, with its first words shown. */
  async function askAndLeave(): Promise<void> {
    agent = uniqueAgent('bfcache');
    const { id } = await command<{ id: number }>({ action: 'open', url: `/scripted/bfcache/page?agent=${agent}&scenario=held&mode=${mode}` });
    tab = id;
    await waitIn(id, `customElements.whenDefined('kagent-chat').then(() => document.querySelector('kagent-chat').updateComplete).then(() => { const chat = document.querySelector('kagent-chat'); if (chat.mode === 'bubble') chat.open(); return chat.updateComplete.then(() => chat.send('Tell me everything')); })`, 'the question to be sent');
    await waitIn(id, `(${STATE}).answer === 'First words, then more.'`, 'the first words');
    await command({ action: 'goto', id, url: '/scripted/bfcache/away' });
  }

  const back = async () => {
    await command({ action: 'back', id: tab });
    await waitIn(tab!, `location.pathname === '/scripted/bfcache/page' && document.readyState === 'complete' && (${STATE}).lifecycle.some((e) => e.startsWith('pageshow'))`, 'the chat page to be shown again');
  };

  afterEach(async () => {
    if (tab !== undefined) await command({ action: 'close', id: tab });
    tab = undefined;
  });

  it('the answer finished while the page was away: restored from the cache, the whole answer is shown, asked once', async () => {
    await askAndLeave();
    const released = await release(agent, 2000);
    expect(released.ok).to.equal(true);
    await back();
    expect(await command<string[]>({ action: 'not-restored', id: tab })).to.deep.equal([]);
    await waitIn(tab!, `(${STATE}).lifecycle.includes('kagent-answer')`, 'the answer to be complete');
    const state = await stateOf(tab!);
    // The page itself came back (its own log goes on), not a new load.
    expect(state.lifecycle.slice(0, 3)).to.deep.equal(['pageshow', 'pagehide persisted', 'pageshow persisted']);
    expect(state.answer).to.match(/^First words, then more\. (More words\. )+/);
    expect(state.answer).to.match(/The end\.$/);
    expect(state.answering).to.equal(false);
    expect(state.failure).to.equal(null);
    expectInPlace(state, true);
    const log = await agentLog(agent);
    expect(log.posts).to.equal(1);
  });

  it('still answering when the page comes back: the stream goes on where it was, the answer completes, asked once', async () => {
    await askAndLeave();
    await back();
    expect(await command<string[]>({ action: 'not-restored', id: tab })).to.deep.equal([]);
    const restored = await stateOf(tab!);
    expect(restored.lifecycle).to.deep.equal(['pageshow', 'pagehide persisted', 'pageshow persisted']);
    expect(restored.answer).to.equal('First words, then more.');
    expect(restored.answering).to.equal(true);
    expectInPlace(restored, true);

    await release(agent, 500);
    await waitIn(tab!, `(${STATE}).lifecycle.includes('kagent-answer')`, 'the answer to be complete');
    const state = await stateOf(tab!);
    expect(state.answer).to.match(/The end\.$/);
    expect(state.answering).to.equal(false);
    expect((await agentLog(agent)).posts).to.equal(1);
  });

  it('dropped from the cache while away (more arrived than the browser keeps): Back loads the page anew, showing every word that had arrived, cut off, with Retry, asked once', async () => {
    await askAndLeave();
    // Over a megabyte: Chromium keeps at most about 1 MB of network data for the cached pages of a process.
    await release(agent, 1_500_000);
    await back();
    // Chromium may send why after the page has loaded anew (the event is ordered with nothing else): wait for it.
    const reasons = await command<string[]>({ action: 'not-restored', id: tab, wait: 30_000 });
    expect(reasons.join(', '), 'why the page was not restored').to.match(/buffer/i);
    await waitIn(tab!, `(${STATE}).failure !== null && document.querySelector('kagent-chat').updateComplete.then(() => true)`, 'the chat to show the cut-off answer');
    const state = await stateOf(tab!);
    // A new page: its log starts again.
    expect(state.lifecycle).to.deep.equal(['pageshow']);
    // Both fragments, though the second came less than a second after the first: kept as the page was left.
    expect(state.answer).to.equal('First words, then more.');
    expect(state.failure).to.equal('incomplete');
    expect(state.answering).to.equal(false);
    expect(state.retry).to.equal(true);
    // A new page: the bubble starts closed, its launcher in its corner.
    expectInPlace(state, false);
    expect((await agentLog(agent)).posts).to.equal(1);
  });
});
