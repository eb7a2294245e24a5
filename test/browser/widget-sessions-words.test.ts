import { expect } from '@open-wc/testing';
import '../../src/widget/index.js';
import type { ChatStringsOverride, KagentChat, KagentErrorDetail } from '../../src/widget/index.js';
import { askAndSettle, busyElsewhere, failureText, mountSessionChat, removeChatsAndFrames, retryWhenAllowed, routes, sessionLog, siteverifyBack, strictSessionPage } from './session-helpers.js';
import { agentLog, answerText, expectComplaints, part, parts, removeAllChats, settled, uniqueAgent } from './widget-helpers.js';

// A page that translates the chat with `strings` sees its own words in everything visitor sessions add: the
// session's questions running out, its limits, a session that could not be earned, the site's daily budget
// spent (with its come-back time in the visitor's locale), and the human check's failures. Against the real
// proxy (test/support/browser-sessions.ts), as in widget-sessions.test.ts.

/** What `dailyBudgetSpent` was called with, to check the time and the wait the chat gives it. */
const budgetCalls: { at: string; hours: number; minutes: number }[] = [];

const GERMAN: ChatStringsOverride = {
  questionsLeft: (left) => `Noch ${left} Fragen für jetzt.`,
  lastQuestion: 'Das war Ihre letzte Frage für jetzt.',
  sessionLimited: 'Sie haben alle Fragen gestellt, die dieser Chat vorerst erlaubt.',
  sessionBusy: 'Eine Antwort an Sie ist noch in einem anderen Fenster unterwegs.',
  sessionMintLimited: 'Dieser Chat wurde aus Ihrem Netz zu oft gestartet.',
  noSession: 'Der Chat konnte kein Gespräch beginnen; Ihre Frage wurde nicht gesendet.',
  dailyBudgetSpent: (at, hours, minutes) => {
    budgetCalls.push({ at, hours, minutes });
    return `Die Fragen dieser Seite sind für heute aufgebraucht. Kommen Sie nach ${at} wieder (in ${hours} Std. ${minutes} Min.).`;
  },
  humanCheckFailed: 'Die Prüfung, ob Sie ein Mensch sind, ist fehlgeschlagen.',
  humanCheckUnavailable: 'Die Prüfung, ob Sie ein Mensch sind, ist gerade nicht erreichbar.',
  humanCheckNotLoaded: 'Die Prüfung, ob Sie ein Mensch sind, konnte nicht geladen werden.',
  retryIn: (seconds) => `Fragen Sie in ${seconds} s wieder.`,
};

/** The `kagent-error` event of the chat's next failed question. */
const nextError = (chat: KagentChat) => new Promise<KagentErrorDetail>((resolve) => chat.addEventListener('kagent-error', (event) => resolve(event.detail), { once: true }));
const noteOf = (chat: KagentChat) => parts(chat, 'turn').at(-1)!.querySelector('[part~="note"]')?.textContent ?? undefined;

/** The come-back time as the chat formats it (the visitor's locale), for a wait of `seconds`. */
const localTime = (seconds: number) => new Date(Date.now() + seconds * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

/** The daily budget's words: the page's own, called with the time to come back in the visitor's locale and a wait under a day. */
function expectBudgetWords(chat: KagentChat): void {
  const call = budgetCalls.at(-1)!;
  expect(failureText(chat)).to.equal(GERMAN.dailyBudgetSpent!(call.at, call.hours, call.minutes));
  const wait = call.hours * 3600 + call.minutes * 60;
  expect(wait, 'a wait until midnight UTC').to.be.within(1, 24 * 3600);
  // The minutes are rounded up: the time to come back is at most a minute before the wait's end.
  expect([localTime(wait), localTime(wait - 60)], `${call.at} in the visitor's locale`).to.include(call.at);
  expect(part(chat, 'failure')!.dataset.kind).to.equal('usage-limit');
}

describe("<kagent-chat> with visitor sessions: the page's own words (strings)", () => {
  afterEach(removeAllChats);

  it('questions left, the last question, then the session limited with its count-down: each in the words given', async () => {
    const scope = uniqueAgent('words-limited');
    const chat = await mountSessionChat('limited', scope, { strings: GERMAN });
    const notes: (string | undefined)[] = [];
    for (const question of ['Eins', 'Zwei', 'Drei', 'Vier']) {
      await askAndSettle(chat, question);
      notes.push(noteOf(chat));
    }
    expect(notes).to.deep.equal([undefined, 'Noch 2 Fragen für jetzt.', 'Noch 1 Fragen für jetzt.', 'Das war Ihre letzte Frage für jetzt.']);
    const error = nextError(chat);
    await askAndSettle(chat, 'Fünf');
    expect(failureText(chat)).to.match(/^Sie haben alle Fragen gestellt, die dieser Chat vorerst erlaubt\. Fragen Sie in \d+ s wieder\.$/);
    expect(await error, 'the kagent-error event carries the words shown').to.deep.include({ code: 'SESSION_LIMITED', message: GERMAN.sessionLimited });
    expect((await agentLog(scope)).posts).to.equal(4);
  });

  it('a renewal refused because the network started too many sessions: the words given, with the count-down', async () => {
    const scope = uniqueAgent('words-mint-limited');
    // Provoked: the query's spoiled token is refused (401) before the renewal is refused for the network's sessions.
    expectComplaints(/^POST \S+\/query: 401$/);
    const chat = await mountSessionChat('mintLimited', scope, { strings: GERMAN });
    await askAndSettle(chat, 'Noch eine Sitzung?');
    expect(failureText(chat)).to.match(/^Dieser Chat wurde aus Ihrem Netz zu oft gestartet\. Fragen Sie in \d+ s wieder\.$/);
    expect(routes(await sessionLog(scope))).to.deep.equal(['challenge 200', 'session 201', 'query 401', 'challenge 200', 'session 429']);
    expect((await agentLog(scope)).posts).to.equal(0);
  });

  const REFUSALS = [
    ['refusing', 'noSession', 'no session the proxy accepts, even a fresh one'],
    ['turnstileFail', 'humanCheckFailed', 'the human check failed'],
  ] as const;
  for (const [preset, key, what] of REFUSALS) {
    it(`${what}: the words given, the question kept with Retry and never sent`, async () => {
      const scope = uniqueAgent(`words-${preset}`);
      const chat = await mountSessionChat(preset, scope, { strings: GERMAN });
      await askAndSettle(chat, 'Geht das?');
      expect(failureText(chat)).to.equal(GERMAN[key]);
      expect(part(chat, 'retry')).to.exist;
      expect((await agentLog(scope)).posts).to.equal(0);
    });
  }

  it("the human check's verification out of reach at the proxy (Cloudflare's endpoint answering 503): the words given, the question kept, and answered once by Retry when it is back", async () => {
    const scope = uniqueAgent('words-turnstile-down');
    const chat = await mountSessionChat('turnstileDown', scope, { strings: GERMAN });
    const error = nextError(chat);
    await askAndSettle(chat, 'Geht das?');
    expect(failureText(chat)).to.equal(GERMAN.humanCheckUnavailable);
    expect(await error).to.deep.include({ code: 'HUMAN_CHECK_UNAVAILABLE', kind: 'server', status: 503, message: GERMAN.humanCheckUnavailable });
    expect(routes(await sessionLog(scope))).to.deep.equal(['challenge 200', 'session 503']);
    expect((await agentLog(scope)).posts).to.equal(0);
    await siteverifyBack(scope);
    await retryWhenAllowed(chat);
    expect(answerText(chat)).to.contain('Reset your password');
    expect(parts(chat, 'question').map((q) => q.textContent)).to.have.length(1);
    expect(routes(await sessionLog(scope))).to.deep.equal(['challenge 200', 'session 503', 'challenge 200', 'session 201', 'query 200']);
    expect((await agentLog(scope)).bodies.map((body) => body.query)).to.deep.equal(['Geht das?']);
  });

  for (const preset of ['budget', 'budgetOff']) {
    it(`the site's daily budget spent (sessions ${preset === 'budget' ? 'on' : 'off'}): the words given, with the come-back time in the visitor's locale`, async () => {
      const scope = uniqueAgent(`words-${preset}`);
      const chat = await mountSessionChat(preset, scope, { strings: GERMAN });
      await askAndSettle(chat, 'Die eine Frage heute');
      await askAndSettle(chat, 'Noch eine?');
      expectBudgetWords(chat);
      expect((await agentLog(scope)).posts).to.equal(1);
    });
  }
});

describe("<kagent-chat> with visitor sessions, one answer at a time per session: the page's own words", () => {
  afterEach(removeChatsAndFrames);

  it("asked while the session's answer streams on the tab's other page: the words given with the count-down, the question kept, and answered once by Retry after", async () => {
    const scope = uniqueAgent('words-busy');
    const { chat, finish } = await busyElsewhere(scope, GERMAN);
    const error = nextError(chat);
    await askAndSettle(chat, 'Geht das?');
    expect(failureText(chat)).to.match(/^Eine Antwort an Sie ist noch in einem anderen Fenster unterwegs\. Fragen Sie in [12] s wieder\.$/);
    expect(await error).to.deep.include({ code: 'SESSION_BUSY', kind: 'rate-limited', status: 429, message: GERMAN.sessionBusy });
    expect(routes(await sessionLog(scope))).to.deep.equal(['challenge 200', 'session 201', 'query 200', 'query 429']);
    expect((await agentLog(scope)).posts, "only the other page's question reached the service").to.equal(1);
    await finish();
    await retryWhenAllowed(chat);
    expect(answerText(chat)).to.contain('The end.');
    expect(routes(await sessionLog(scope))).to.deep.equal(['challenge 200', 'session 201', 'query 200', 'query 429', 'query 200']);
    expect((await agentLog(scope)).bodies.map((body) => body.query)).to.deep.equal(['How do I reset my password?', 'Geht das?']);
  });
});

describe("the built chat on a strict page with the human check on: the page's own words", () => {
  afterEach(() => {
    for (const frame of document.querySelectorAll('iframe')) frame.remove();
  });

  it("Cloudflare's script blocked by the page's policy: the words given, the question kept", async () => {
    const scope = uniqueAgent('words-csp-turnstile');
    const win = await strictSessionPage(scope, 'allowed', 'turnstile');
    const inline = win.document.getElementById('inline') as KagentChat;
    // A site that translates its chats gives each its words (here the page's two chats ask the same proxy).
    for (const chat of win.document.querySelectorAll('kagent-chat')) chat.strings = GERMAN;
    (part(inline, 'suggestion') as HTMLButtonElement).click();
    await settled(inline, 30_000);
    expect(failureText(inline)).to.equal(GERMAN.humanCheckNotLoaded);
    expect(part(inline, 'retry')).to.exist;
    expect((await agentLog(scope)).posts).to.equal(0);
  });
});
