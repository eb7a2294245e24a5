// Shared steps of the widget's browser tests (not a test file itself).
import type { KagentChat } from '../../src/widget/index.js';
// Every file that uses these steps fails a test in which the chat complains (console-check.ts).
import './console-check.js';
export { expectComplaints } from './console-check.js';

/** An agent id no other test uses, so server logs and storage keys never mix. */
export function uniqueAgent(name: string): string {
  return `${name}-${Math.random().toString(36).slice(2, 10)}`;
}

/**
 * Polls `check` until it returns something truthy; fails with `what` after `timeout` ms,
 * a ceiling for a loaded machine (another test run beside this one), not an expectation.
 */
export async function waitFor<T>(check: () => T | undefined | null | false, what: string, timeout = 30_000): Promise<T> {
  const start = performance.now();
  for (;;) {
    const value = check();
    if (value) return value;
    if (performance.now() - start > timeout) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Like `waitFor`, for a check that has to ask the server. */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, what: string, timeout = 30_000): Promise<T> {
  const start = performance.now();
  for (;;) {
    const value = await check();
    if (value) return value;
    if (performance.now() - start > timeout) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface AgentLog {
  posts: number;
  bodies: { query: string; streaming: boolean; conversationId?: string; visitorId?: string }[];
  cancelled: number;
  /** GETs of the features route of a service that is not kagent-proxy (`/scripted/not-proxy/<agentId>`). */
  features: number;
}

/** What the scripted service saw for `agentId`. */
export async function agentLog(agentId: string): Promise<AgentLog> {
  return (await fetch(`/scripted/widget-log/${encodeURIComponent(agentId)}`)).json();
}

/** Adds a chat for `scenario` of the scripted service to the page. */
export function mountChat(agentId: string, scenario: string, attributes: Record<string, string> = {}): Promise<KagentChat> {
  return mountChatAt(agentId, `/scripted/widget/${scenario}`, attributes);
}

/** Adds a chat asking `endpoint` to the page, once drawn. */
export async function mountChatAt(agentId: string, endpoint: string, attributes: Record<string, string> = {}): Promise<KagentChat> {
  const chat = document.createElement('kagent-chat');
  chat.setAttribute('agent-id', agentId);
  chat.setAttribute('endpoint', endpoint);
  for (const [name, value] of Object.entries(attributes)) chat.setAttribute(name, value);
  document.body.append(chat);
  await chat.updateComplete;
  return chat;
}

export const part = (chat: Element, name: string) => chat.shadowRoot!.querySelector<HTMLElement>(`[part~="${name}"]`);
export const parts = (chat: Element, name: string) => [...chat.shadowRoot!.querySelectorAll<HTMLElement>(`[part~="${name}"]`)];

/** Types a question and presses Send. */
export async function ask(chat: KagentChat, question: string): Promise<void> {
  const input = part(chat, 'input') as HTMLTextAreaElement;
  input.value = question;
  const send = part(chat, 'send') as HTMLButtonElement;
  send.click();
  await chat.updateComplete;
}

/** Waits until the newest turn has settled (answered, failed or stopped). */
export async function settled(chat: KagentChat, timeout = 30_000): Promise<void> {
  await chat.updateComplete;
  await waitFor(() => part(chat, 'send') && !(part(chat, 'status')), 'the answer to settle', timeout);
  await chat.updateComplete;
  await new Promise((resolve) => requestAnimationFrame(resolve));
  await chat.updateComplete;
}

/** Text of the newest answer. */
export function lastAnswer(chat: Element): HTMLElement | undefined {
  return parts(chat, 'answer-text').at(-1);
}

/** Text of the newest answer; where there is none, fails saying what the chat shows instead (a failure's words, or the question still waiting). */
export function answerText(chat: Element): string {
  const answer = lastAnswer(chat);
  if (!answer) throw new Error(`No answer; the chat shows: ${part(chat, 'transcript')?.textContent?.replace(/\s+/g, ' ').trim().slice(-300)}`);
  return answer.textContent ?? '';
}

export function removeAllChats(): void {
  for (const chat of document.querySelectorAll('kagent-chat')) chat.remove();
}
