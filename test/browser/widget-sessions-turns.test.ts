import { expect } from '@open-wc/testing';
import '../../src/widget/index.js';
import type { KagentChat } from '../../src/widget/index.js';
import { failureText, mountSessionChat, removeChatsAndFrames, routes, sessionLog } from './session-helpers.js';
import { agentLog, answerText, ask, lastAnswer, part, settled, uniqueAgent, waitFor } from './widget-helpers.js';

// Two chats of one page asking the same proxy, which streams one answer a session at a time: they take turns rather
// than refuse each other as busy. Against the real proxy (test/support/browser-sessions.ts), whose `held` preset
// holds each answer after its first words until the test lets it go. A file of its own: in WebKit, a page that ran
// these before widget-sessions.test.ts's Worker-counting test saw that test count no Workers (not understood yet).

/** Two chats asking one proxy (preset `held`), the first's answer ('Who goes first?') streaming and held after its first words. */
async function oneStreaming(name: string): Promise<{ scope: string; first: KagentChat; second: KagentChat }> {
  const scope = uniqueAgent(name);
  const first = await mountSessionChat('held', scope);
  const second = await mountSessionChat('held', scope);
  await ask(first, 'Who goes first?');
  await waitFor(() => lastAnswer(first)?.textContent?.includes('First words'), 'the first answer under way');
  return { scope, first, second };
}

describe('<kagent-chat> with visitor sessions: two chats of one page take turns', () => {
  afterEach(removeChatsAndFrames);

  it("two chats of one page asking the same proxy take turns: the second question waits for the first answer, then goes once and is answered, never refused as busy", async () => {
    const { scope, first, second } = await oneStreaming('sessions-turns');
    // Asked while the first answer streams on the page's one session: not sent meanwhile (a chat that does not wait
    // sends it within a millisecond, as its send handler runs: two frames later it would have gone).
    const queries: string[] = [];
    const pageFetch = window.fetch;
    window.fetch = (input, init) => {
      if (String(input instanceof Request ? input.url : input).endsWith('/query')) queries.push(String(init?.body));
      return pageFetch(input, init);
    };
    try {
      await ask(second, 'And who after?');
      for (let frame = 0; frame < 2; frame++) await new Promise(requestAnimationFrame);
      expect(queries, 'nothing sent while the first answer streams').to.deep.equal([]);
      // The first is let finish; then the second goes.
      await fetch(`/scripted/widget-release/${scope}?bytes=0`, { method: 'POST' });
      await settled(first, 30_000);
      await settled(second, 30_000);
    } finally {
      window.fetch = pageFetch;
    }
    expect(queries.length, 'the second question sent once').to.equal(1);
    expect(part(second, 'failure'), failureText(second) ?? '').to.equal(null);
    expect(answerText(second)).to.contain('The end.');
    expect(routes(await sessionLog(scope))).to.deep.equal(['challenge 200', 'session 201', 'query 200', 'query 200']);
    expect((await agentLog(scope)).bodies.map((body) => body.query)).to.deep.equal(['Who goes first?', 'And who after?']);
  });

  it("a question waiting for the other chat's answer can be stopped: it is never sent, and the other answer goes on", async () => {
    const { scope, first, second } = await oneStreaming('sessions-turn-stop');
    await ask(second, 'Never mind?');
    (part(second, 'stop') as HTMLButtonElement).click();
    await settled(second, 30_000);
    expect(part(second, 'note')!.textContent).to.contain('You stopped this answer.');
    await fetch(`/scripted/widget-release/${scope}?bytes=0`, { method: 'POST' });
    await settled(first, 30_000);
    expect(answerText(first)).to.contain('The end.');
    expect(routes(await sessionLog(scope))).to.deep.equal(['challenge 200', 'session 201', 'query 200']);
    expect((await agentLog(scope)).bodies.map((body) => body.query)).to.deep.equal(['Who goes first?']);
  });
});
