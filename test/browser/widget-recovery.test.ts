import { expect } from '@open-wc/testing';
import '../../src/widget/index.js';
import { ConversationStore, MAX_STORED_CHARS, MAX_STORED_TURNS, type KagentChat } from '../../src/widget/index.js';
import { isValidQueryId } from '../../src/protocol/index.js';
import { agentLog, ask, expectComplaints, lastAnswer, mountChat, part, parts, removeAllChats, settled, uniqueAgent, waitFor } from './widget-helpers.js';

const WIDGET_ID = /^[0-9a-f]{32}$/;

interface ProxyLog {
  requests: { body: { query?: string; visitorId?: string; conversationId?: string }; status: number }[];
}

/** What reached the real proxy in front of the scripted service. */
async function proxyLog(agentId: string): Promise<ProxyLog> {
  return (await fetch(`/scripted/proxy-log/${encodeURIComponent(agentId)}`)).json();
}

/** Puts `value` where the chat for `agentId` at `endpoint` keeps its conversation, as a site script could. */
function storeRaw(endpoint: string, agentId: string, value: string): string {
  const key = new ConversationStore(endpoint, agentId).key;
  localStorage.setItem(key, value);
  return key;
}

const stored = (key: string) => JSON.parse(localStorage.getItem(key)!) as { version: number; visitorId: string; conversationId: string; turns: { question: string; state: string }[] };

const turn = (i: number, extra: Record<string, unknown> = {}) => ({ id: `t${i}`, question: `Question ${i}`, answer: `Answer ${i}`, sources: [], state: 'answered', ...extra });
const conversation = (fields: Record<string, unknown>) => JSON.stringify({ version: 1, visitorId: 'visitor_ok', conversationId: 'conv_ok', turns: [turn(0)], ...fields });

/** A chat whose endpoint is the real proxy in front of `scenario` of the scripted service. */
function mountBehindProxy(agentId: string, scenario: string): Promise<KagentChat> {
  return mountChat(agentId, scenario, { endpoint: `/scripted/proxy/${scenario}` });
}

/** Asks once through the real proxy, asks once, and checks it was answered on the first request. */
async function answersFirstTime(agent: string, chat: KagentChat): Promise<void> {
  const failuresBefore = parts(chat, 'failure').length; // restored failed turns keep theirs
  await ask(chat, 'Does it work?');
  await settled(chat);
  expect(parts(chat, 'failure').length, 'no new failure is shown').to.equal(failuresBefore);
  expect(lastAnswer(chat)!.textContent).to.contain('Reset your password');
  const log = await proxyLog(agent);
  expect(log.requests.map((r) => r.status), 'one request, let through').to.deep.equal([200]);
  expect(isValidQueryId(log.requests[0]!.body.visitorId)).to.equal(true);
  expect(isValidQueryId(log.requests[0]!.body.conversationId)).to.equal(true);
}

describe('<kagent-chat> recovers from what is stored and what comes back', () => {
  beforeEach(() => localStorage.clear());
  afterEach(removeAllChats);

  describe('a stored visitorId the proxy refuses', () => {
    const refused: [string, unknown][] = [
      ['129 characters', 'v'.repeat(129)],
      ['an e-mail address', 'someone@example.com'],
      ['spaces', 'a visitor id'],
      ['empty', ''],
      ['a number', 42],
      ['an object', { id: 'x' }],
      ['a megabyte', 'x'.repeat(1_000_000)],
    ];
    for (const [what, visitorId] of refused) {
      it(`is replaced before the next question, which is answered (${what}), and the transcript is kept`, async () => {
        const agent = uniqueAgent('bad-visitor');
        const endpoint = '/scripted/proxy/answer';
        const key = storeRaw(endpoint, agent, conversation({ visitorId }));
        const chat = await mountBehindProxy(agent, 'answer');
        expect(parts(chat, 'question').map((q) => q.textContent)).to.deep.equal(['You asked: Question 0']);
        await answersFirstTime(agent, chat);
        const sent = (await proxyLog(agent)).requests[0]!.body;
        expect(sent.visitorId).to.match(WIDGET_ID);
        expect(sent.conversationId, 'a valid stored conversation id is kept').to.equal('conv_ok');
        // The new id is what is kept, so a reload does not bring the refused one back.
        expect(stored(key).visitorId).to.equal('visitor_from_service');
        expect(stored(key).turns.map((t) => t.question)).to.deep.equal(['Question 0', 'Does it work?']);
      });
    }

    it('"New conversation" also starts with ids the proxy accepts', async () => {
      const agent = uniqueAgent('bad-visitor-new');
      storeRaw('/scripted/proxy/answer', agent, conversation({ visitorId: 'someone@example.com', conversationId: 'conv with spaces' }));
      const chat = await mountBehindProxy(agent, 'answer');
      (part(chat, 'new-conversation') as HTMLButtonElement).click();
      await chat.updateComplete;
      await answersFirstTime(agent, chat);
    });
  });

  describe('a 400 that names an id', () => {
    // Provoked: the endpoint refuses the stored id, and the chat says on the console that it asks again with a new one.
    beforeEach(() => expectComplaints(/^POST \S+\/query: 400$/, /^console\.warn: kagent-chat: the endpoint refused the stored \w+( and \w+)?; asking again with a new one$/));
    for (const streaming of [true, false]) {
      it(`replaces the named id once and asks again, keeping the other (${streaming ? 'stream' : 'JSON'})`, async () => {
        const agent = uniqueAgent('refused-conversation');
        const endpoint = '/scripted/widget/refuse-conversation-once';
        const key = storeRaw(endpoint, agent, conversation({}));
        const chat = await mountChat(agent, 'refuse-conversation-once', streaming ? {} : { streaming: 'false' });
        await ask(chat, 'Try me');
        await settled(chat);
        expect(parts(chat, 'failure').length).to.equal(0);
        expect(lastAnswer(chat)!.textContent).to.contain('Reset your password');
        const log = await agentLog(agent);
        expect(log.posts).to.equal(2);
        expect(log.bodies.map((b) => b.query)).to.deep.equal(['Try me', 'Try me']);
        expect(log.bodies[0]!.conversationId).to.equal('conv_ok');
        expect(log.bodies[1]!.conversationId).to.match(WIDGET_ID);
        expect(log.bodies[1]!.visitorId, 'the id not named stays').to.equal('visitor_ok');
        expect(stored(key).turns.map((t) => t.state)).to.deep.equal(['answered', 'answered']);
      });
    }

    it('asks again only once: a second refusal is shown, and Retry again makes at most two requests', async () => {
      const agent = uniqueAgent('refused-always');
      const chat = await mountChat(agent, 'refuse-visitor-always');
      await ask(chat, 'Never answered');
      await settled(chat);
      expect(part(chat, 'failure')!.dataset.kind).to.equal('bad-request');
      let log = await agentLog(agent);
      expect(log.posts).to.equal(2);
      expect(log.bodies[0]!.visitorId).to.not.equal(log.bodies[1]!.visitorId);
      (part(chat, 'retry') as HTMLButtonElement).click();
      await settled(chat);
      log = await agentLog(agent);
      expect(log.posts).to.equal(4);
      expect(part(chat, 'failure')!.dataset.kind).to.equal('bad-request');
    });

    it('a 400 that names no id is not asked again', async () => {
      const agent = uniqueAgent('plain-400');
      const chat = await mountChat(agent, 'status-400');
      await ask(chat, 'Bad request');
      await settled(chat);
      expect(part(chat, 'failure')!.dataset.kind).to.equal('bad-request');
      expect((await agentLog(agent)).posts).to.equal(1);
    });
  });

  it('does not adopt ids the service returns that the proxy would refuse', async () => {
    const agent = uniqueAgent('returned-ids');
    const chat = await mountBehindProxy(agent, 'refused-ids');
    await ask(chat, 'First');
    await settled(chat);
    await ask(chat, 'Second');
    await settled(chat);
    expect(parts(chat, 'failure')).to.have.length(0);
    const { requests } = await proxyLog(agent);
    expect(requests.map((r) => r.status), 'each question let through at once').to.deep.equal([200, 200]);
    expect(requests[1]!.body.visitorId).to.equal(requests[0]!.body.visitorId);
    expect(requests[1]!.body.conversationId).to.equal(requests[0]!.body.conversationId);
  });

  describe('stored transcripts are capped when read', () => {
    it(`5,000 stored turns: only the newest ${MAX_STORED_TURNS} reach the page`, async () => {
      const agent = uniqueAgent('many-turns');
      storeRaw('/scripted/widget/answer', agent, conversation({ turns: Array.from({ length: 5000 }, (_, i) => turn(i)) }));
      const chat = await mountChat(agent, 'answer');
      const questions = parts(chat, 'question');
      expect(questions).to.have.length(MAX_STORED_TURNS);
      expect(questions[0]!.textContent).to.equal(`You asked: Question ${5000 - MAX_STORED_TURNS}`);
      expect(questions.at(-1)!.textContent).to.equal('You asked: Question 4999');
      expect(parts(chat, 'answer-text')).to.have.length(MAX_STORED_TURNS);
    });

    it('turns that together exceed the size cap: the newest that fit, and one huge answer is cut and marked', async () => {
      const agent = uniqueAgent('huge-turns');
      const big = 'word '.repeat(MAX_STORED_CHARS / 10); // half the cap each
      storeRaw('/scripted/widget/answer', agent, conversation({ turns: [turn(0, { answer: big }), turn(1, { answer: big }), turn(2, { answer: big })] }));
      let chat = await mountChat(agent, 'answer');
      expect(parts(chat, 'question').map((q) => q.textContent)).to.deep.equal(['You asked: Question 2']);
      chat.remove();

      storeRaw('/scripted/widget/answer', agent, conversation({ turns: [turn(0), turn(1, { answer: 'z'.repeat(2_000_000) })] }));
      chat = await mountChat(agent, 'answer');
      // The cut answer leaves room for the older, small turn.
      expect(parts(chat, 'question').map((q) => q.textContent)).to.deep.equal(['You asked: Question 0', 'You asked: Question 1']);
      await waitFor(() => (lastAnswer(chat)?.textContent?.length ?? 0) > 0, 'the restored answer');
      const shown = lastAnswer(chat)!.textContent!.length;
      expect(shown).to.be.greaterThan(1000);
      expect(shown).to.be.at.most(MAX_STORED_CHARS);
      expect(part(chat, 'failure')!.textContent).to.contain('cut off');
    });
  });

  describe('recovers from any stored value, on the first question', () => {
    const values: [string, string][] = [
      ['not JSON', 'not json at all'],
      ['cut-off JSON', '{"version":1,"visitorId":"v","turns":[{"id"'],
      ['null', 'null'],
      ['a number', '42'],
      ['a string', '"kagent"'],
      ['an array', '[1,2,3]'],
      ['an older version', JSON.stringify({ version: 0, visitorId: 'v', conversationId: 'c', turns: [] })],
      ['a future version', conversation({ version: 99 })],
      ['no ids', JSON.stringify({ version: 1, turns: [turn(0)] })],
      ['ids of other types', conversation({ visitorId: ['v'], conversationId: null })],
      ['ids the proxy refuses', conversation({ visitorId: 'a b', conversationId: 'c'.repeat(500) })],
      ['turns not a list', conversation({ turns: { 0: turn(0) } })],
      ['turns of wrong shapes', conversation({ turns: [null, 1, 'x', [], turn(1, { state: 'exploded' }), turn(2, { question: 5 }), turn(3)] })],
      ['repeated and odd turn ids', conversation({ turns: [turn(1, { id: 'same' }), turn(2, { id: 'same' }), turn(3, { id: { x: 1 } }), turn(4, { id: 'a'.repeat(100_000) })] })],
      ['odd sources and failures', conversation({ turns: [turn(1, { sources: 'nope' }), turn(2, { sources: [null, 5, ['x'], { score: 'high', source_url: 'javascript:alert(1)' }] }), turn(3, { state: 'failed', failure: { kind: 'bad-request', status: 'x', code: {}, detail: 'd'.repeat(100_000) } }), turn(4, { state: 'failed', failure: { kind: 'nope' } })] })],
      ['a prototype key', '{"__proto__":{"polluted":true},"version":1,"visitorId":"v","conversationId":"c","turns":[{"__proto__":{"polluted":true},"id":"p","question":"q","answer":"a","sources":[],"state":"answered"}]}'],
      ['a 4 MB string', JSON.stringify('x'.repeat(4_000_000))],
    ];
    for (const [what, value] of values) {
      it(what, async () => {
        const agent = uniqueAgent('poisoned');
        const key = storeRaw('/scripted/proxy/answer', agent, value);
        const chat = await mountBehindProxy(agent, 'answer');
        await answersFirstTime(agent, chat);
        expect(({} as { polluted?: unknown }).polluted).to.equal(undefined);
        // What is kept now is a conversation the chat wrote, with ids the proxy accepts.
        const now = stored(key);
        expect(now.version).to.equal(1);
        expect(isValidQueryId(now.visitorId) && isValidQueryId(now.conversationId)).to.equal(true);
        expect(now.turns.at(-1)!.question).to.equal('Does it work?');
        // Every turn has its own rendered answer (a repeated id would share one between two turns).
        const answers = parts(chat, 'answer-text');
        expect(answers).to.have.length(parts(chat, 'question').length);
        await waitFor(() => answers.every((a) => a.textContent!.length > 0), 'every answer to render');
      });
    }
  });
});
