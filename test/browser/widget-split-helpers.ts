// Pages with the script-tag build in an iframe of their own (a fresh module map
// each), loaded through the gate of test/support/script-tag-gate.ts (not a test file itself).
import type { KagentChat } from '../../src/widget/index.js';
import { part } from './widget-helpers.js';

export type GateState = 'open' | 'fail' | 'hold';

export interface ChatPage {
  gate: string;
  frame: HTMLIFrameElement;
  window: Window & { idleCallbacks: IdleRequestCallback[] };
  chat: KagentChat;
  /** The page's load event. */
  loaded: Promise<unknown>;
}

/** An id no other test uses. */
export const gateId = (name: string) => `${name}-${Math.random().toString(36).slice(2, 10)}`;

/** `missing`: files whose names start with it are 404 (a site that did not copy them). */
export async function setGate(gate: string, answers: GateState, missing?: string): Promise<void> {
  await fetch(`/split-gate/${gate}?answers=${answers}${missing ? `&missing=${missing}` : ''}`, { method: 'POST' });
}

/** The warnings and errors the page's chat writes on its console, from now on (each call's arguments joined as text). */
export function pageConsole(page: ChatPage): string[] {
  const said: string[] = [];
  const { console } = page.window as unknown as typeof globalThis;
  for (const level of ['warn', 'error'] as const) {
    const original = console[level].bind(console);
    console[level] = (...args: unknown[]) => {
      said.push(args.map(String).join(' '));
      original(...args);
    };
  }
  return said;
}

/** The files the page asked the gate for, in order. */
export async function requested(gate: string): Promise<string[]> {
  return ((await (await fetch(`/split-gate/${gate}`)).json()) as { requests: string[] }).requests;
}

export const isSecondPart = (file: string) => /^kagent-chat-answers-[\w-]+\.js$/.test(file);

/** How many times the page asked the gate for the second part. */
export const secondPartRequests = async (gate: string) => (await requested(gate)).filter(isSecondPart).length;

/** An inline chat asking the scripted service's answers. */
export const inlineChat = (agent: string, attributes = '') => `<kagent-chat agent-id="${agent}" endpoint="/scripted/widget/answer" ${attributes}></kagent-chat>`;

/** Types `question` in the page's chat and sends it. */
export async function typeAndSend(page: ChatPage, question: string): Promise<void> {
  (part(page.chat, 'input') as HTMLTextAreaElement).value = question;
  (part(page.chat, 'send') as HTMLButtonElement).click();
  await page.chat.updateComplete;
}

/**
 * A page with `<script type="module" src=".../kagent-chat.js">` and `chatHtml`,
 * as a site writes it, once the chat is drawn. The browser's idle callbacks are kept in
 * `window.idleCallbacks` for the test to run: the test decides when the page is idle.
 * Its load event may come later: Firefox holds it while an `import()` is on its way (the second part, held at the gate).
 */
export async function openChatPage(gate: string, chatHtml: string, { script = 'kagent-chat.js' } = {}): Promise<ChatPage> {
  const frame = document.createElement('iframe');
  // At the top left, so the whole chat is within the viewport a real mouse reaches.
  frame.style.cssText = 'position:fixed;top:0;left:0;width:480px;height:560px;border:0';
  frame.srcdoc = `<!doctype html><html><head>
<script>
  window.idleCallbacks = [];
  window.requestIdleCallback = (callback) => window.idleCallbacks.push(callback);
  window.cancelIdleCallback = () => {};
</script>
<script type="module" src="/split/${gate}/${script}"></script>
<script type="module">parent.postMessage('chat-page-ready ${gate}', '*');</script>
</head><body>${chatHtml}</body></html>`;
  // Module scripts run in order, before the load event: the second says the first has run.
  const ready = new Promise<void>((resolve) => {
    const heard = (event: MessageEvent) => {
      if (event.data !== `chat-page-ready ${gate}`) return;
      removeEventListener('message', heard);
      resolve();
    };
    addEventListener('message', heard);
  });
  const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
  document.body.append(frame);
  await ready;
  const win = frame.contentWindow as ChatPage['window'];
  const chat = win.document.querySelector('kagent-chat') as KagentChat;
  await win.customElements.whenDefined('kagent-chat');
  await chat.updateComplete;
  return { gate, frame, window: win, chat, loaded };
}

/** Two animation frames of the page: whatever the first render started has had its turn. */
export async function frames(page: ChatPage): Promise<void> {
  for (let i = 0; i < 2; i++) await new Promise((resolve) => page.window.requestAnimationFrame(resolve));
}

/** The page's browser becomes idle: its idle callbacks run. */
export function becomeIdle(page: ChatPage): void {
  for (const callback of page.window.idleCallbacks.splice(0)) callback({ didTimeout: false, timeRemaining: () => 50 });
}

export function removeChatPages(): void {
  for (const frame of document.querySelectorAll('iframe')) frame.remove();
}
