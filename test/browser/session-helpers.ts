// Shared steps of the browser tests of visitor sessions (not a test file itself): the chat in front of the
// real proxy with sessions on (test/support/browser-sessions.ts), and what that proxy and the stand-in of
// Cloudflare's script (test/support/turnstile-script-stand-in.ts) saw.
import type { ChatStringsOverride, KagentChat } from '../../src/widget/index.js';
import { sessionStorageKey } from '../../src/widget/answer-engine/sessions/index.js';
import { ask, lastAnswer, part, removeAllChats, settled, waitFor } from './widget-helpers.js';

export interface SessionLog {
  requests: { route: 'challenge' | 'session' | 'query' | 'feedback'; token: string | null; status: number }[];
  /** The status of each GET of the features route. */
  features: number[];
}
export interface Kept {
  token: string;
  renewAt: number;
  expiresAt: number;
  solvedBy?: 'worker' | 'main-thread';
}

export const sessionLog = async (scope: string): Promise<SessionLog> => (await fetch(`/scripted/sessions-log/${scope}`)).json();
export const endpointOf = (preset: string, scope: string) => `/scripted/sessions/${preset}/${scope}`;
export const kept = (storage: Storage, preset: string, scope: string): Kept | undefined => JSON.parse(storage.getItem(sessionStorageKey(endpointOf(preset, scope))) ?? 'null') ?? undefined;
/** The routes the proxy saw, in order, with their statuses: `challenge 200`, `query 401`... */
export const routes = (log: SessionLog) => log.requests.map((r) => `${r.route} ${r.status}`);

/** A chat asking the proxy of `preset` as agent `scope`, added to `into` (the page's body unless given: another element's shadow root, say). */
export async function mountSessionChat(preset: string, scope: string, { into = document.body, attributes = {}, strings }: { into?: ParentNode; attributes?: Record<string, string>; strings?: ChatStringsOverride } = {}): Promise<KagentChat> {
  const chat = document.createElement('kagent-chat');
  chat.setAttribute('agent-id', scope);
  chat.setAttribute('endpoint', endpointOf(preset, scope));
  for (const [name, value] of Object.entries(attributes)) chat.setAttribute(name, value);
  if (strings) chat.strings = strings;
  into.append(chat);
  await chat.updateComplete;
  return chat;
}

export async function askAndSettle(chat: KagentChat, question: string): Promise<void> {
  await ask(chat, question);
  await settled(chat, 30_000);
}

/** The words of the chat's failure, as shown (a count-down included). */
export const failureText = (chat: KagentChat) => part(chat, 'failure')?.querySelector('span')?.textContent;

/** Every chat and frame the test added. */
export function removeChatsAndFrames(): void {
  removeAllChats();
  for (const frame of document.querySelectorAll('iframe')) frame.remove();
}

/** Clicks Retry once its count-down (if any) lets it, and waits for the answer to settle. */
export async function retryWhenAllowed(chat: KagentChat): Promise<void> {
  const retry = await waitFor(() => !(part(chat, 'retry') as HTMLButtonElement | null)?.disabled && part(chat, 'retry'), 'Retry to be allowed');
  retry.click();
  await settled(chat, 30_000);
}

/** A chat whose session is busy on the tab's other page (below), and how to let that page's answer finish. */
export interface BusyElsewhere {
  chat: KagentChat;
  /** Lets the rest of the other page's answer come, and waits until that page's chat has it all. */
  finish: () => Promise<void>;
}

/**
 * A chat (preset `held`) that earned its session on focus, while that session streams an answer on another page of
 * the same tab: a same-origin frame shares the tab's sessionStorage, so its chat sends the same token, as a second
 * tab opened from this one would. That answer is held after its first words until `finish`.
 */
export async function busyElsewhere(scope: string, strings?: ChatStringsOverride): Promise<BusyElsewhere> {
  const chat = await mountSessionChat('held', scope, { strings });
  (part(chat, 'input') as HTMLTextAreaElement).focus();
  await waitFor(() => kept(sessionStorage, 'held', scope), 'a session earned on focus');
  const win = await strictSessionPage(scope, 'allowed', 'held');
  const other = await waitFor(() => part(win.document.getElementById('inline') as KagentChat, 'suggestion'), 'the chat on the other page').then((button) => {
    button.click();
    return (button.getRootNode() as ShadowRoot).host as KagentChat;
  });
  await waitFor(() => lastAnswer(other)?.textContent?.includes('First words'), "the other page's answer under way");
  const finish = async () => {
    await fetch(`/scripted/widget-release/${scope}?bytes=0`, { method: 'POST' });
    await settled(other, 30_000);
  };
  return { chat, finish };
}

/** The outage of the siteverify stand-in behind preset `turnstileDown` or `turnstileUnreachable` is over (test/support/browser-sessions.ts). */
export const siteverifyBack = (scope: string) => fetch(`/scripted/sessions-siteverify-up/${scope}`, { method: 'POST' });

export type StrictWindow = Window & typeof globalThis & { violations: string[] };

/** The built chat on a page with a strict Content-Security-Policy, in a frame (test/support/csp-page.ts). */
export async function strictSessionPage(scope: string, workers: 'allowed' | 'none', preset = 'on'): Promise<StrictWindow> {
  const frame = document.createElement('iframe');
  const native = 'setHTML' in Element.prototype;
  frame.src = `/scripted/csp/page?agent=${scope}&sessions=${preset}${workers === 'none' ? '&workers=none' : ''}${native ? '' : '&sanitizer=dompurify'}`;
  document.body.append(frame);
  await new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
  return frame.contentWindow as StrictWindow;
}

/** The stand-in of Cloudflare's script records what the chat asked of it (test/support/turnstile-script-stand-in.ts). */
export interface StandInLog {
  renders: { sitekey: string; appearance: string; retry: string; inDocument: boolean }[];
  removed: string[];
  tokens: number;
  standIn: true;
}
export const standIn = () => (window as unknown as { turnstileStandIn?: StandInLog }).turnstileStandIn;
export const STAND_IN_TOKEN = /^XXXX\.DUMMY\.TOKEN\.XXXX\.\d+$/;
