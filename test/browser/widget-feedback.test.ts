import { expect } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import '../../src/widget/index.js';
import type { KagentChat, KagentFeedbackDetail } from '../../src/widget/index.js';
import { FEEDBACK_COMMENT_MAX, type FeedbackRequest, type InsightsReport } from '../../src/protocol/index.js';
import { INSIGHTS_TOKEN } from '../support/browser-proxy.js';
import { typeInto, waitForFocus } from './keyboard.js';
import { askAndSettle, endpointOf, mountSessionChat, sessionLog } from './session-helpers.js';
import { ask, eventually, mountChat, mountChatAt, part, parts, removeAllChats, settled, uniqueAgent, waitFor } from './widget-helpers.js';

// "Helpful?" under a finished answer: the thumbs, their field, the event a page listens to, the choice kept across a
// reload, and the feedback posted to kagent-proxy only where it collects feedback (a real proxy with insights on,
// whose report is read back with the admin token).

/** The insights report of the proxy at `endpoint`, read with the admin token. */
const reportOf = async (endpoint: string): Promise<InsightsReport> => (await fetch(`${endpoint}/insights`, { headers: { authorization: `Bearer ${INSIGHTS_TOKEN}` } })).json();
const announced = (chat: KagentChat) => chat.shadowRoot!.querySelector('[role="status"]')!.textContent!.trim();
const pressed = (chat: KagentChat) => [part(chat, 'feedback-up'), part(chat, 'feedback-down')].map((thumb) => thumb!.getAttribute('aria-pressed'));
const thumbsOf = async (chat: KagentChat): Promise<[HTMLElement, HTMLElement]> => {
  await waitFor(() => part(chat, 'feedback-down'), 'the feedback buttons');
  return [part(chat, 'feedback-up')!, part(chat, 'feedback-down')!];
};

/** Every `kagent-feedback` a chat fires, in order. */
function feedbackEvents(chat: KagentChat): KagentFeedbackDetail[] {
  const seen: KagentFeedbackDetail[] = [];
  chat.addEventListener('kagent-feedback', (event) => seen.push(event.detail));
  return seen;
}

/** The bodies of the feedback the page's chats post, while `run` runs. */
async function feedbackPosts(run: (posts: FeedbackRequest[]) => Promise<void>): Promise<void> {
  const posts: FeedbackRequest[] = [];
  const pageFetch = window.fetch;
  window.fetch = (input, init) => {
    if (String(input instanceof Request ? input.url : input).endsWith('/feedback')) posts.push(JSON.parse(String(init?.body)));
    return pageFetch(input, init);
  };
  try {
    await run(posts);
  } finally {
    window.fetch = pageFetch;
  }
}

describe('<kagent-chat> answer feedback', () => {
  beforeEach(() => localStorage.clear());
  afterEach(removeAllChats);

  it('offers named thumbs under a finished answer; a choice is pressed, announced, fired as kagent-feedback, and can be changed', async () => {
    const chat = await mountChat(uniqueAgent('feedback'), 'answer');
    const events = feedbackEvents(chat);
    await ask(chat, 'How do I reset my password?');
    expect(part(chat, 'feedback')).to.equal(null); // not while the answer is coming
    await settled(chat);
    const [up, down] = await thumbsOf(chat);
    expect(part(chat, 'feedback')!.textContent).to.contain('Helpful?');
    expect([up.getAttribute('aria-label'), down.getAttribute('aria-label')]).to.deep.equal(['Helpful', 'Not helpful']);
    expect(pressed(chat)).to.deep.equal(['false', 'false']);

    up.click();
    expect(pressed(chat)).to.deep.equal(['true', 'false']);
    await chat.updateComplete;
    expect(announced(chat)).to.equal('Helpful. Thanks for your feedback.');
    expect(events).to.have.length(1);
    expect(events[0]).to.include({ rating: 'up', comment: undefined, question: 'How do I reset my password?' });
    expect(events[0]!.answer).to.contain('Settings');
    expect(events[0]!.sources).to.have.length.greaterThan(0);
    expect(events[0]!.conversationId).to.be.a('string');

    // Changed: the other thumb is pressed, and the page hears of it again.
    down.click();
    expect(pressed(chat)).to.deep.equal(['false', 'true']);
    expect(events.map((event) => event.rating)).to.deep.equal(['up', 'down']);
  });

  it('works from the keyboard: the thumbs-down opens "What was missing?" (500 characters at most), Enter sends it, Escape closes it', async () => {
    const chat = await mountChat(uniqueAgent('feedback-keys'), 'answer');
    const events = feedbackEvents(chat);
    await ask(chat, 'Keys?');
    await settled(chat);
    const [, down] = await thumbsOf(chat);
    down.focus();
    await waitForFocus(down);
    await sendKeys({ press: 'Enter' });
    const field = (await waitFor(() => part(chat, 'feedback-comment'), 'the comment field')) as HTMLInputElement;
    await waitForFocus(field);
    expect(field.labels?.[0]?.textContent).to.contain('What was missing?');
    expect(field.maxLength).to.equal(FEEDBACK_COMMENT_MAX);
    expect(events.map((event) => event.rating)).to.deep.equal(['down']);

    await typeInto(field, 'A screenshot');
    await sendKeys({ press: 'Enter' });
    await waitFor(() => events.length === 2, 'the comment sent');
    expect(events[1]).to.include({ rating: 'down', comment: 'A screenshot' });
    await waitForFocus(down);
    expect(field.closest('form')!.hidden).to.equal(true);

    // Open again: the comment is there to change; Escape closes the field and sends nothing.
    await sendKeys({ press: 'Enter' });
    await waitForFocus(field);
    expect(field.value).to.equal('A screenshot');
    await sendKeys({ press: 'Escape' });
    await waitForFocus(down);
    expect(field.closest('form')!.hidden).to.equal(true);
    expect(events).to.have.length(2);
  });

  it('keeps the choice and its comment with the turn across a reload, where it can be changed', async () => {
    const agent = uniqueAgent('feedback-reload');
    let chat = await mountChat(agent, 'answer');
    await ask(chat, 'Remember my thumb');
    await settled(chat);
    let [, down] = await thumbsOf(chat);
    down.click();
    const field = part(chat, 'feedback-comment') as HTMLInputElement;
    // More than the proxy takes (a value set by script is not held to maxlength): the comment is cut to the limit.
    field.value = 'x'.repeat(FEEDBACK_COMMENT_MAX + 100);
    field.form!.requestSubmit();

    chat.remove();
    chat = await mountChat(agent, 'answer');
    const events = feedbackEvents(chat);
    [, down] = await thumbsOf(chat);
    expect(pressed(chat)).to.deep.equal(['false', 'true']);
    down.click();
    expect((part(chat, 'feedback-comment') as HTMLInputElement).value).to.have.length(FEEDBACK_COMMENT_MAX);
    part(chat, 'feedback-up')!.click();
    expect(pressed(chat)).to.deep.equal(['true', 'false']);
    expect(events.map((event) => event.rating)).to.deep.equal(['up']);
    const stored = JSON.parse(localStorage.getItem(Object.keys(localStorage).find((key) => key.endsWith(agent))!)!);
    expect(stored.turns[0].feedback).to.deep.equal({ rating: 'up' });
  });

  it('feedback="off" hides the buttons', async () => {
    const chat = await mountChat(uniqueAgent('feedback-off'), 'answer', { feedback: 'off' });
    await ask(chat, 'No thumbs');
    await settled(chat);
    const bar = await waitFor(() => part(chat, 'feedback'), 'the feedback bar');
    expect(getComputedStyle(bar).display).to.equal('none');
    expect(parts(chat, 'feedback-up')[0]!.getClientRects()).to.have.length(0);
  });

  it('posts to a proxy that collects feedback, unless a listener prevents it, and to one that does not, nothing', async () => {
    await feedbackPosts(async (posts) => {
      // kagent-proxy with insights off (its features say feedback: false, and its answers name no question).
      const quiet = await mountChatAt(uniqueAgent('feedback-quiet'), '/scripted/proxy/answer');
      await ask(quiet, 'Anyone listening?');
      await settled(quiet);
      (await thumbsOf(quiet))[0].click();

      const agent = uniqueAgent('feedback-insights');
      const endpoint = `/scripted/insights/${agent}`;
      const chat = await mountChatAt(agent, endpoint);
      await ask(chat, 'Where do I change my plan?');
      await settled(chat);
      const [up, down] = await thumbsOf(chat);
      // The page sends this one to its own analytics instead.
      chat.addEventListener('kagent-feedback', (event) => event.preventDefault(), { once: true });
      up.click();
      down.click();
      const field = part(chat, 'feedback-comment') as HTMLInputElement;
      field.value = 'The price of each plan';
      field.form!.requestSubmit();

      const record = await eventually(async () => (await reportOf(endpoint)).thumbsDown.find((r) => r.feedback?.comment), 'the comment in the report');
      expect(record).to.include({ question: 'Where do I change my plan?' });
      expect(record.feedback).to.include({ rating: 'down', comment: 'The price of each plan' });
      // The prevented thumbs-up and the quiet proxy's never left the page: only the two thumbs-down did.
      expect(posts.map(({ rating, comment }) => ({ rating, comment }))).to.deep.equal([
        { rating: 'down', comment: undefined },
        { rating: 'down', comment: 'The price of each plan' },
      ]);
      expect(new Set(posts.map((post) => post.questionId)).size).to.equal(1);
      expect((await reportOf(endpoint)).totals).to.include({ thumbsUp: 0, thumbsDown: 1 });
    });
  });

  it('with visitor sessions on, the feedback goes with the session a question carries, and counts for that question', async () => {
    const scope = uniqueAgent('feedback-session');
    const chat = await mountSessionChat('insights', scope);
    await askAndSettle(chat, 'Is my session known?');
    (await thumbsOf(chat))[1].click();
    const record = await eventually(async () => (await reportOf(endpointOf('insights', scope))).thumbsDown[0], 'the thumbs-down in the report');
    expect(record).to.include({ question: 'Is my session known?' });
    const { requests } = await sessionLog(scope);
    const [query, feedback] = [requests.find((r) => r.route === 'query')!, requests.find((r) => r.route === 'feedback')!];
    expect(feedback).to.include({ status: 204, token: query.token });
    expect(feedback.token).to.be.a('string');
  });
});
