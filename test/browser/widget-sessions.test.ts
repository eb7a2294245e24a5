import { expect } from '@open-wc/testing';
import '../../src/widget/index.js';
import type { KagentChat } from '../../src/widget/index.js';
import { NO_SESSION } from '../../src/widget/answer-engine/sessions/visitor-session.js';
import { sessionStorageKey, solvedStorageKey } from '../../src/widget/answer-engine/sessions/index.js';
import {
  askAndSettle,
  busyElsewhere,
  endpointOf,
  failureText,
  kept,
  mountSessionChat,
  type Kept,
  removeChatsAndFrames,
  retryWhenAllowed,
  routes,
  sessionLog,
  siteverifyBack,
  standIn,
  strictSessionPage,
  STAND_IN_TOKEN,
  type StrictWindow,
} from './session-helpers.js';
import { agentLog, answerText, ask, expectComplaints, part, parts, removeAllChats, settled, uniqueAgent, waitFor } from './widget-helpers.js';

// The chat in front of the real proxy with visitor sessions on (test/support/browser-sessions.ts):
// it earns its session, sends each question once with the token, renews a refused or ageing
// token, and says plainly what a session's limits and the site's daily budget mean.

/** A challenge solved in idle time and kept for the session a visitor starts by focusing the chat or asking. */
const solvedKept = (storage: Storage, preset: string, scope: string): { solvedBy: Kept['solvedBy'] } | undefined => JSON.parse(storage.getItem(solvedStorageKey(endpointOf(preset, scope))) ?? 'null') ?? undefined;

/** A token signed with the proxy's secret, minted `age` seconds ago, kept in the tab as if this chat had earned it (and due for renewal at `renewAt`). */
async function keepToken(preset: string, scope: string, age: number, renewAt = Date.now() + 3_600_000): Promise<string> {
  const { token } = (await (await fetch(`/scripted/sessions-token/${scope}?age=${age}&origin=${encodeURIComponent(location.origin)}`)).json()) as { token: string };
  sessionStorage.setItem(sessionStorageKey(endpointOf(preset, scope)), JSON.stringify({ token, renewAt, expiresAt: Date.now() + 3_600_000 }));
  return token;
}

describe('<kagent-chat> with visitor sessions on at the proxy', () => {
  afterEach(removeAllChats);

  it('earns a session when the chat is first focused, before any question; the question carries its token and reaches the service once', async () => {
    const scope = uniqueAgent('sessions-focus');
    const chat = await mountSessionChat('on', scope);
    (part(chat, 'input') as HTMLTextAreaElement).focus();
    const earned = await waitFor(() => kept(sessionStorage, 'on', scope), 'a session earned on focus');
    expect(earned.solvedBy, 'solved off the main thread').to.equal('worker');
    expect(routes(await sessionLog(scope))).to.deep.equal(['challenge 200', 'session 201']);
    await askAndSettle(chat, 'What is a session?');
    expect(answerText(chat)).to.contain('Reset your password');
    const log = await sessionLog(scope);
    expect(routes(log)).to.deep.equal(['challenge 200', 'session 201', 'query 200']);
    expect(log.requests[2]!.token).to.equal(earned.token);
    expect((await agentLog(scope)).posts).to.equal(1);
  });

  it('asked at once, before a session is earned: the question waits for it, and is never sent without one first', async () => {
    const scope = uniqueAgent('sessions-at-once');
    const chat = await mountSessionChat('on', scope);
    await askAndSettle(chat, 'Straight away?');
    expect(answerText(chat)).to.contain('Reset your password');
    const log = await sessionLog(scope);
    expect(routes(log)).to.deep.equal(['challenge 200', 'session 201', 'query 200']);
    expect(log.requests[2]!.token).to.equal(kept(sessionStorage, 'on', scope)!.token);
  });

  // A proxy without sessions (its features route says so), or a host's catch-all route in front of it answering the
  // site's page (200 text/html, as a single-page app's fallback to index.html does): either is asked once, taken as
  // off, and questions go without a token, as before; the challenge route is never asked.
  for (const [preset, title] of [
    ['off', 'sessions off: the features route, asked once, says so; questions go without a token, as before, and no request fails'],
    ['fallback', "sessions off behind a host's catch-all route (the features route answers the site's page, 200 text/html): taken as off; questions go without a token"],
  ] as const) {
    it(title, async () => {
      const scope = uniqueAgent(`sessions-${preset}`);
      const chat = await mountSessionChat(preset, scope);
      await askAndSettle(chat, 'First');
      await askAndSettle(chat, 'Second');
      expect(parts(chat, 'answer-text')).to.have.length(2);
      expect(parts(chat, 'failure')).to.have.length(0);
      const log = await sessionLog(scope);
      expect(routes(log)).to.deep.equal(['query 200', 'query 200']);
      expect(log.features).to.deep.equal([200]);
      expect(log.requests.map((r) => r.token)).to.deep.equal([null, null]);
      expect((await agentLog(scope)).posts).to.equal(2);
    });
  }

  it('a token that expired mid-conversation (the proxy refuses it): a new session, and the question sent exactly once more', async () => {
    const scope = uniqueAgent('sessions-expired');
    // Provoked: the proxy refuses the expired token once (a 401 the browser prints), then the renewed one goes through.
    expectComplaints(/^POST \S+\/query: 401$/);
    const old = await keepToken('on', scope, 3600);
    const chat = await mountSessionChat('on', scope);
    await askAndSettle(chat, 'Still there?');
    expect(answerText(chat)).to.contain('Reset your password');
    const log = await sessionLog(scope);
    expect(routes(log)).to.deep.equal(['query 401', 'challenge 200', 'session 201', 'query 200']);
    expect(log.requests[0]!.token).to.equal(old);
    expect(log.requests[3]!.token).to.not.equal(old);
    expect((await agentLog(scope)).posts, 'the service saw the question once').to.equal(1);
  });

  it('a token near its end (by the chat\'s own clock): the question goes with it at once, and the next session is earned meanwhile', async () => {
    const scope = uniqueAgent('sessions-renew');
    const old = await keepToken('on', scope, 60, Date.now() - 1000);
    const chat = await mountSessionChat('on', scope);
    await askAndSettle(chat, 'One');
    const fresh = await waitFor(() => (kept(sessionStorage, 'on', scope)?.token !== old ? kept(sessionStorage, 'on', scope) : undefined), 'the next session');
    await askAndSettle(chat, 'Two');
    const log = await sessionLog(scope);
    const queries = log.requests.filter((r) => r.route === 'query');
    expect(queries.map((q) => [q.token, q.status])).to.deep.equal([[old, 200], [fresh.token, 200]]);
    expect(log.requests.filter((r) => r.route === 'challenge')).to.have.length(1);
  });

  it('a secret rotated away (the proxy refuses the token as invalid): renewed, and the question sent once more', async () => {
    const scope = uniqueAgent('sessions-rotated');
    // Provoked: the rotated secret makes the proxy refuse the token once (a 401 the browser prints).
    expectComplaints(/^POST \S+\/query: 401$/);
    const chat = await mountSessionChat('on', scope);
    await askAndSettle(chat, 'Before');
    await fetch(`/scripted/sessions-rotate/on/${scope}`, { method: 'POST' });
    await askAndSettle(chat, 'After');
    expect(parts(chat, 'answer-text')).to.have.length(2);
    expect(routes(await sessionLog(scope))).to.deep.equal(['challenge 200', 'session 201', 'query 200', 'query 401', 'challenge 200', 'session 201', 'query 200']);
    expect((await agentLog(scope)).posts).to.equal(2);
  });

  it('refused again after renewing: a clear failure, the question kept with Retry, and no third try', async () => {
    const scope = uniqueAgent('sessions-refused');
    const chat = await mountSessionChat('refusing', scope);
    await askAndSettle(chat, 'Will this go?');
    expect(part(chat, 'failure')!.querySelector('span')!.textContent).to.equal(NO_SESSION);
    expect(parts(chat, 'question').map((q) => q.textContent)).to.deep.equal(['You asked: Will this go?']);
    expect(part(chat, 'retry')).to.exist;
    expect(routes(await sessionLog(scope))).to.deep.equal(['challenge 200', 'session 201', 'query 401', 'challenge 200', 'session 201', 'query 401']);
    expect((await agentLog(scope)).posts).to.equal(0);
  });

  it('a session running out of questions: "n questions left" at 2 or fewer, announced with the answer; then when the next may go', async () => {
    const scope = uniqueAgent('sessions-limited');
    const chat = await mountSessionChat('limited', scope);
    const status = () => chat.shadowRoot!.querySelector('[role="status"]')!.textContent!;
    const notes: (string | undefined)[] = [];
    for (const question of ['One', 'Two', 'Three', 'Four']) {
      await askAndSettle(chat, question);
      const note = parts(chat, 'turn').at(-1)!.querySelector('[part~="note"]')?.textContent ?? undefined;
      notes.push(note);
      // Said once, with the answer it follows, by the chat's one polite live region.
      if (note) expect(status()).to.match(new RegExp(`^Assistant: .+ ${note.replace(/\./g, '\\.')}$`, 's'));
    }
    expect(notes).to.deep.equal([undefined, '2 questions left for now.', '1 question left for now.', 'That was the last question you can ask for now.']);
    await askAndSettle(chat, 'Five');
    const failure = part(chat, 'failure')!.querySelector('span')!.textContent!;
    expect(failure).to.match(/^You have asked all the questions this chat allows for now\. You can ask again in [45] min( \d+ s)?\.$/);
    // Announced as before for a rate limit: the message, without the count-down that follows it on screen.
    expect(failure.startsWith(status())).to.equal(true);
    // The session is not re-minted to dodge its limit.
    const log = await sessionLog(scope);
    expect(log.requests.filter((r) => r.route === 'challenge')).to.have.length(1);
    expect(routes(log).at(-1)).to.equal('query 429');
    expect((await agentLog(scope)).posts).to.equal(4);
  });

  it("the site's daily budget spent: said plainly, with when to come back, and the chat not locked for hours", async () => {
    const scope = uniqueAgent('sessions-budget');
    const chat = await mountSessionChat('budget', scope);
    await askAndSettle(chat, 'The one question today');
    await askAndSettle(chat, 'One more?');
    const failure = part(chat, 'failure')!;
    expect(failure.dataset.kind).to.equal('usage-limit');
    expect(failure.querySelector('span')!.textContent).to.match(/^This site's questions for today are used up\. Please come back after \d{1,2}[:.]\d{2}(\s?[AP]M)? \(in (\d+ h( \d+ min)?|\d+ min)\)\.$/);
    expect((part(chat, 'retry') as HTMLButtonElement).disabled, 'no count-down lock').to.equal(false);
    expect((await agentLog(scope)).posts).to.equal(1);
  });
});

describe('<kagent-chat> with visitor sessions: one answer at a time per session', () => {
  afterEach(removeChatsAndFrames);

  it("asked while the tab's session streams an answer on its other page: said plainly with the count-down, never sent meanwhile, and answered once by Retry after", async () => {
    const scope = uniqueAgent('sessions-busy');
    const { chat, finish } = await busyElsewhere(scope);
    const status = () => chat.shadowRoot!.querySelector('[role="status"]')!.textContent!;
    await askAndSettle(chat, 'Can I ask now?');
    expect(failureText(chat)).to.match(/^An answer to you is still on its way in another window\. You can ask again in [12] s\.$/);
    expect(part(chat, 'failure')!.dataset.kind).to.equal('rate-limited');
    expect(status()).to.equal('An answer to you is still on its way in another window.');
    expect(parts(chat, 'question').map((q) => q.textContent)).to.deep.equal(['You asked: Can I ask now?']);
    expect(routes(await sessionLog(scope))).to.deep.equal(['challenge 200', 'session 201', 'query 200', 'query 429']);
    await finish();
    await retryWhenAllowed(chat);
    expect(answerText(chat)).to.contain('The end.');
    expect(part(chat, 'failure')).to.equal(null);
    // The same session, not a new one to dodge the limit; the refused question reached the service once, after.
    expect(routes(await sessionLog(scope))).to.deep.equal(['challenge 200', 'session 201', 'query 200', 'query 429', 'query 200']);
    expect((await agentLog(scope)).bodies.map((body) => body.query)).to.deep.equal(['How do I reset my password?', 'Can I ask now?']);
  });
});

/** Counts the Workers the page starts and stops (the solver makes its Workers from `globalThis.Worker` when it starts them). */
function trackWorkers(): { started: number; stopped: number; restore: () => void } {
  const Original = globalThis.Worker;
  // Put back only while it is still this tracker's: a test that failed early must not take a later test's tracker away.
  const tracker = { started: 0, stopped: 0, restore: () => void (globalThis.Worker === Tracked && (globalThis.Worker = Original)) };
  const Tracked = class extends Original {
    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options);
      tracker.started++;
    }
    override terminate(): void {
      tracker.stopped++;
      super.terminate();
    }
  };
  globalThis.Worker = Tracked;
  return tracker;
}

describe('<kagent-chat> earning its session: what the visitor never sees', () => {
  afterEach(removeAllChats);

  it('a solve under way stops when the chat is removed: every Worker it started is stopped, and no session is asked for', async () => {
    const scope = uniqueAgent('sessions-removed');
    const workers = trackWorkers();
    try {
      // A challenge that takes minutes: still being solved when the chat goes.
      const chat = await mountSessionChat('slow', scope);
      (part(chat, 'input') as HTMLTextAreaElement).focus();
      await waitFor(() => workers.started > 0, "the solver's Workers to start").catch(async (error: Error) => {
        // Whether the challenge was asked for at all tells a slow request from a solve that never began.
        throw new Error(`${error.message} (the proxy saw: ${routes(await sessionLog(scope)).join(', ') || 'nothing'})`);
      });
      const started = workers.started;
      chat.remove();
      await waitFor(() => workers.stopped >= started, `all ${started} Workers stopped (stopped: ${workers.stopped})`);
      expect(workers.started, 'no Worker started since').to.equal(started);
      expect(routes(await sessionLog(scope))).to.deep.equal(['challenge 200']);
    } finally {
      workers.restore();
    }
  });

  it("the challenge's parts are solved across several Workers, each started once for all the parts, and the proxy takes every part's solution", async () => {
    const scope = uniqueAgent('sessions-parts');
    const workers = trackWorkers();
    // Four cores: three Workers (one core left to the page), each solving its share of the parts.
    Object.defineProperty(navigator, 'hardwareConcurrency', { value: 4, configurable: true });
    try {
      const chat = await mountSessionChat('on', scope);
      (part(chat, 'input') as HTMLTextAreaElement).focus();
      const earned = await waitFor(() => kept(sessionStorage, 'on', scope), 'a session earned on focus');
      expect(earned.solvedBy).to.equal('worker');
      expect(workers.started, 'one Worker per core but one, none per part').to.equal(3);
      expect(workers.stopped, 'all stopped once solved').to.equal(3);
      expect(routes(await sessionLog(scope)), 'the first session request accepted').to.deep.equal(['challenge 200', 'session 201']);
    } finally {
      delete (navigator as { hardwareConcurrency?: number }).hardwareConcurrency;
      workers.restore();
    }
  });

  it('a token renewed in the background before it expires: nothing shown meanwhile, and the next question goes with the new one at once', async () => {
    const scope = uniqueAgent('sessions-background');
    // Still valid, but due for renewal by the chat's own clock.
    const old = await keepToken('on', scope, 60, Date.now() - 1000);
    const chat = await mountSessionChat('on', scope);
    const shown = () => `${chat.shadowRoot!.textContent}|${chat.textContent}`;
    const before = shown();
    (part(chat, 'input') as HTMLTextAreaElement).focus();
    const fresh = await waitFor(() => (kept(sessionStorage, 'on', scope)?.token !== old ? kept(sessionStorage, 'on', scope) : undefined), 'the session renewed in the background');
    expect(shown(), 'nothing drawn or said while renewing').to.equal(before);
    expect(routes(await sessionLog(scope))).to.deep.equal(['challenge 200', 'session 201']);
    await askAndSettle(chat, 'Straight through?');
    expect(part(chat, 'failure')).to.equal(null);
    const log = await sessionLog(scope);
    expect(routes(log)).to.deep.equal(['challenge 200', 'session 201', 'query 200']);
    expect(log.requests[2]!.token).to.equal(fresh.token);
  });
});

/** The files the page fetched, by name, from the browser's own record of its requests (Resource Timing). */
const fetchedFiles = (win: Window) => win.performance.getEntriesByType('resource').map((entry) => new URL(entry.name).pathname.split('/').pop()!);

describe('the built chat earns its session on a page with a strict Content-Security-Policy', () => {
  afterEach(() => {
    for (const frame of document.querySelectorAll('iframe')) frame.remove();
  });

  it("in idle time after load, without a question, solving in a Worker where the policy allows one (worker-src falls back to script-src 'self')", async () => {
    const scope = uniqueAgent('sessions-csp-worker');
    const win = await strictSessionPage(scope, 'allowed');
    const solved = await waitFor(() => solvedKept(win.sessionStorage, 'on', scope), 'a challenge solved in idle time');
    expect(solved.solvedBy).to.equal('worker');
    expect(win.violations).to.deep.equal([]);
    // The keeper's chunk was fetched, as the browser's own record of the page's requests shows (the control of the sessions-off test below).
    expect(fetchedFiles(win).some((name) => name.startsWith('kagent-chat-sessions-')), fetchedFiles(win).join(' ')).to.equal(true);
    const inline = win.document.getElementById('inline') as KagentChat;
    (part(inline, 'suggestion') as HTMLButtonElement).click();
    await settled(inline, 30_000);
    const log = await sessionLog(scope);
    expect(routes(log)).to.deep.equal(['challenge 200', 'session 201', 'query 200']);
    expect(log.requests[2]!.token).to.equal(kept(win.sessionStorage, 'on', scope)!.token);
    expect(kept(win.sessionStorage, 'on', scope)!.solvedBy).to.equal('worker');
  });

  it("in idle time, a challenge solved but no session started: a page view alone uses none of the address's sessions; focus starts it from that solution", async () => {
    const scope = uniqueAgent('sessions-idle');
    const win = await strictSessionPage(scope, 'allowed');
    await waitFor(() => solvedKept(win.sessionStorage, 'on', scope), 'a challenge solved in idle time');
    expect(routes(await sessionLog(scope))).to.deep.equal(['challenge 200']);
    expect(kept(win.sessionStorage, 'on', scope), 'no session before the visitor shows they want the chat').to.equal(undefined);
    const inline = win.document.getElementById('inline') as KagentChat;
    (part(inline, 'input') as HTMLTextAreaElement).focus();
    const earned = await waitFor(() => kept(win.sessionStorage, 'on', scope), 'a session started on focus');
    expect(routes(await sessionLog(scope)), 'the solution from idle time, no second challenge').to.deep.equal(['challenge 200', 'session 201']);
    expect(solvedKept(win.sessionStorage, 'on', scope), 'the spent solution forgotten').to.equal(undefined);
    (part(inline, 'suggestion') as HTMLButtonElement).click();
    await settled(inline, 30_000);
    const log = await sessionLog(scope);
    expect(routes(log)).to.deep.equal(['challenge 200', 'session 201', 'query 200']);
    expect(log.requests[2]!.token).to.equal(earned.token);
  });

  it("the tab's next page starts its session from the challenge solved on the last one: no second challenge, no second solve", async () => {
    const scope = uniqueAgent('sessions-next-page');
    const frame = await strictSessionPage(scope, 'allowed');
    await waitFor(() => solvedKept(frame.sessionStorage, 'on', scope), 'a challenge solved in idle time');
    // The same tab's next page (sessionStorage is the tab's, per origin).
    const next = await new Promise<StrictWindow>((resolve) => {
      const element = [...document.querySelectorAll('iframe')].find((candidate) => candidate.contentWindow === frame)!;
      element.addEventListener('load', () => resolve(element.contentWindow as StrictWindow), { once: true });
      frame.location.reload();
    });
    const inline = await waitFor(() => part(next.document.getElementById('inline') as KagentChat, 'input') as HTMLTextAreaElement | null, 'the chat on the next page');
    inline.focus();
    await waitFor(() => kept(next.sessionStorage, 'on', scope), 'a session started on focus');
    // One challenge for both pages: nothing was solved on the next one.
    expect(routes(await sessionLog(scope))).to.deep.equal(['challenge 200', 'session 201']);
  });

  it("with worker-src 'none': the Worker is refused, and the main thread earns the session in slices", async () => {
    const scope = uniqueAgent('sessions-csp-main');
    const win = await strictSessionPage(scope, 'none');
    const solved = await waitFor(() => solvedKept(win.sessionStorage, 'on', scope), 'a challenge solved in idle time');
    expect(solved.solvedBy).to.equal('main-thread');
    expect(win.violations.some((v) => v.startsWith('worker-src')), `a refused Worker among ${JSON.stringify(win.violations)}`).to.equal(true);
    const inline = win.document.getElementById('inline') as KagentChat;
    (part(inline, 'suggestion') as HTMLButtonElement).click();
    await settled(inline, 30_000);
    expect(answerText(inline)).to.contain('Reset your password');
    expect(routes(await sessionLog(scope))).to.deep.equal(['challenge 200', 'session 201', 'query 200']);
  });

  it('sessions off (as the features route says): the keeper\'s chunk (its Worker\'s script too) is never fetched', async () => {
    const scope = uniqueAgent('sessions-csp-off');
    const win = await strictSessionPage(scope, 'allowed', 'off');
    const inline = win.document.getElementById('inline') as KagentChat;
    (part(inline, 'suggestion') as HTMLButtonElement).click();
    await settled(inline, 30_000);
    expect(answerText(inline)).to.contain('Reset your password');
    expect(routes(await sessionLog(scope))).to.deep.equal(['query 200']);
    const files = fetchedFiles(win);
    expect(files.some((name) => name.startsWith('kagent-chat-answers-')), `the second part among ${files.join(' ')}`).to.equal(true);
    expect(files.filter((name) => /^kagent-chat-(sessions|human-check)-/.test(name))).to.deep.equal([]);
  });

  it("with the human check on and a policy that leaves out https://challenges.cloudflare.com: says Cloudflare's script could not be loaded, and keeps the question", async () => {
    const scope = uniqueAgent('sessions-csp-turnstile');
    const win = await strictSessionPage(scope, 'allowed', 'turnstile');
    const inline = win.document.getElementById('inline') as KagentChat;
    (part(inline, 'suggestion') as HTMLButtonElement).click();
    await settled(inline, 30_000);
    expect(part(inline, 'failure')!.querySelector('span')!.textContent).to.equal(SCRIPT_NOT_LOADED);
    expect(parts(inline, 'question').map((q) => q.textContent)).to.deep.equal(['You asked: How do I reset my password?']);
    expect(part(inline, 'retry')).to.exist;
    expect(win.violations.some((v) => v.includes('challenges.cloudflare.com')), `a refused script among ${JSON.stringify(win.violations)}`).to.equal(true);
    // No session was asked for, so nothing reached the service.
    expect(routes(await sessionLog(scope)).every((route) => route === 'challenge 200')).to.equal(true);
    expect((await agentLog(scope)).posts).to.equal(0);
  });
});

const HUMAN_CHECK_FAILED = "This site's check that you are a person did not pass, so your question was not sent. Reload the page, then retry.";
const HUMAN_CHECK_UNAVAILABLE = "This site's check that you are a person could not be reached, so your question was not sent. Retry in a moment.";
const SCRIPT_NOT_LOADED = "This site's check that you are a person could not be loaded (a browser extension or the page's settings may block it), so your question was not sent. Retry in a moment.";
const checkBox = (chat: Element) => chat.querySelector<HTMLElement>('[slot="kagent-human-check"]');

describe('<kagent-chat> with the human check (Cloudflare Turnstile) on at the proxy, against a stand-in of Cloudflare\'s script', () => {
  afterEach(removeAllChats);

  it('a question is answered: the script loaded once, the check drawn invisibly in the page, and its token sent with the solution', async () => {
    const scope = uniqueAgent('turnstile-pass');
    const chat = await mountSessionChat('turnstile', scope);
    await askAndSettle(chat, 'Are you there?');
    expect(answerText(chat)).to.contain('Reset your password');
    const log = await sessionLog(scope);
    expect(routes(log)).to.deep.equal(['challenge 200', 'session 201', 'query 200']);
    expect(log.requests[1]!.token).to.match(STAND_IN_TOKEN);
    expect(document.querySelectorAll('script[src*="/scripted/turnstile/api.js"]')).to.have.length(1);
    const render = standIn()!.renders.at(-1)!;
    expect(render).to.deep.include({ sitekey: '1x00000000000000000000AA', appearance: 'interaction-only', inDocument: true });
    // Its widget is gone with the token it gave: the next session gets a fresh one.
    expect(checkBox(chat)).to.equal(null);
    expect((await agentLog(scope)).posts).to.equal(1);
  });

  it('a check that fails: its message, the question kept with Retry, and no session asked for', async () => {
    const scope = uniqueAgent('turnstile-fail');
    const chat = await mountSessionChat('turnstileFail', scope);
    await askAndSettle(chat, 'Will this pass?');
    const failure = part(chat, 'failure')!;
    expect(failure.querySelector('span')!.textContent).to.equal(HUMAN_CHECK_FAILED);
    expect(parts(chat, 'question').map((q) => q.textContent)).to.deep.equal(['You asked: Will this pass?']);
    expect(part(chat, 'retry')).to.exist;
    const seen = routes(await sessionLog(scope));
    expect(seen.length > 0 && seen.every((route) => route === 'challenge 200'), seen.join(', ')).to.equal(true);
    expect((await agentLog(scope)).posts).to.equal(0);
  });

  it("Cloudflare's verification out of reach from the proxy (the connection dropped): its message, the question kept and never sent; Retry once it is back: answered once", async () => {
    const scope = uniqueAgent('turnstile-unreachable');
    const chat = await mountSessionChat('turnstileUnreachable', scope);
    await askAndSettle(chat, 'Is anyone checking?');
    expect(failureText(chat)).to.equal(HUMAN_CHECK_UNAVAILABLE);
    expect(part(chat, 'failure')!.dataset.kind).to.equal('server');
    expect(parts(chat, 'question').map((q) => q.textContent)).to.deep.equal(['You asked: Is anyone checking?']);
    const log = await sessionLog(scope);
    expect(routes(log)).to.deep.equal(['challenge 200', 'session 503']);
    expect(log.requests[1]!.token, 'the check itself passed in the page').to.match(STAND_IN_TOKEN);
    expect((await agentLog(scope)).posts).to.equal(0);
    await siteverifyBack(scope);
    await retryWhenAllowed(chat);
    expect(answerText(chat)).to.contain('Reset your password');
    expect(parts(chat, 'question')).to.have.length(1);
    expect(routes(await sessionLog(scope))).to.deep.equal(['challenge 200', 'session 503', 'challenge 200', 'session 201', 'query 200']);
    expect((await agentLog(scope)).posts).to.equal(1);
  });

  it('a check that needs the visitor: drawn inside the chat\'s panel, the question waiting until the box is ticked, then answered', async () => {
    const scope = uniqueAgent('turnstile-interactive');
    const chat = await mountSessionChat('turnstileInteractive', scope);
    await ask(chat, 'Do you need me?');
    const button = await waitFor(() => checkBox(chat)?.querySelector('button'), 'the check to tick');
    const slot = checkBox(chat)!.assignedSlot!;
    expect(slot, 'shown through a slot of the chat').to.exist;
    expect(slot.getRootNode()).to.equal(chat.shadowRoot);
    expect(slot.closest('[part~="base"]'), 'inside the chat\'s panel').to.exist;
    const [box, panel] = [button.getBoundingClientRect(), part(chat, 'base')!.getBoundingClientRect()];
    expect(box.height, 'visible').to.be.greaterThan(0);
    expect(box.top >= panel.top && box.bottom <= panel.bottom, 'within the panel').to.equal(true);
    expect(routes(await sessionLog(scope)), 'no session asked for before the check').to.deep.equal(['challenge 200']);
    button.click();
    await settled(chat, 30_000);
    expect(answerText(chat)).to.contain('Reset your password');
    expect(routes(await sessionLog(scope))).to.deep.equal(['challenge 200', 'session 201', 'query 200']);
    expect(checkBox(chat), 'the check leaves the panel once done').to.equal(null);
  });

  it('each new session gets a fresh token: the renewal before the end, and the one after a refused token', async () => {
    const scope = uniqueAgent('turnstile-renew');
    // Provoked: a token the proxy refuses (a 401 the browser prints), after which a new session is earned.
    expectComplaints(/^POST \S+\/query: 401$/);
    const old = await keepToken('turnstile', scope, 60, Date.now() - 1000);
    const chat = await mountSessionChat('turnstile', scope);
    await askAndSettle(chat, 'One');
    await waitFor(() => kept(sessionStorage, 'turnstile', scope)?.token !== old && kept(sessionStorage, 'turnstile', scope), 'the next session');
    await fetch(`/scripted/sessions-rotate/turnstile/${scope}`, { method: 'POST' });
    await askAndSettle(chat, 'Two');
    expect(parts(chat, 'answer-text')).to.have.length(2);
    const log = await sessionLog(scope);
    // The first question (on the old token) and the renewal it starts run side by side: their order on the server varies.
    const seen = routes(log);
    expect([...seen.slice(0, 3)].sort(), seen.join(', ')).to.deep.equal(['challenge 200', 'query 200', 'session 201']);
    expect(seen.indexOf('challenge 200') < seen.indexOf('session 201'), seen.join(', ')).to.equal(true);
    expect(seen.slice(3), seen.join(', ')).to.deep.equal(['query 401', 'challenge 200', 'session 201', 'query 200']);
    const tokens = log.requests.filter((r) => r.route === 'session').map((r) => r.token!);
    for (const token of tokens) expect(token).to.match(STAND_IN_TOKEN);
    expect(new Set(tokens).size, `fresh tokens: ${tokens.join(', ')}`).to.equal(2);
    expect((await agentLog(scope)).posts).to.equal(2);
  });
});
