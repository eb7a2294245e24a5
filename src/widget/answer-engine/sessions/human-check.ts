// Part of the visitor-session keeper, as a chunk of its own (kagent-chat-human-check-<hash>.js),
// fetched only from a proxy whose challenge asks for Cloudflare Turnstile: a fresh
// Turnstile token for each session, from Cloudflare's script (loaded once), with the
// check drawn inside the chat, where Cloudflare shows it only when it needs the visitor.
// It imports no module (types only), so that it shares none with the other chunks and makes no chunk of shared code.
import type { SessionErrorCode } from '../../../protocol/sessions/index.js';
import type { ChatFailure } from '../../element/failure-kinds.js';
import type { PageChat } from '../chat-in-use.js';

/** Cloudflare's script, for explicit rendering. Only Cloudflare may serve it (self-hosting it is not supported), so it is no setting. */
const TURNSTILE_SCRIPT = 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit';

/** The name of the slot in the chat's panel that shows the check (a light-DOM child: Turnstile cannot render inside a shadow root). */
export const HUMAN_CHECK_SLOT = 'kagent-human-check';

/** What the keeper uses of Cloudflare's `window.turnstile`. */
interface Turnstile {
  render(container: HTMLElement, parameters: Record<string, unknown>): string | null | undefined;
  remove(widgetId: string): void;
}

/** The English default of the chat's `humanCheckNotLoaded` string: here, as only a proxy with the check asks for it. */
export const NOT_LOADED = "This site's check that you are a person could not be loaded (a browser extension or the page's settings may block it), so your question was not sent. Retry in a moment.";

/** A token for one session, or why there is none. */
export type HumanCheck = { token: string } | { failure: ChatFailure };

let loaded: Promise<Turnstile> | undefined;

/** Cloudflare's script, added to the page once; a failed load is forgotten, so the next try loads it again. */
function loadTurnstile(trusted: (url: URL) => string | URL): Promise<Turnstile> {
  return (loaded ??= new Promise<Turnstile>((resolve, reject) => {
    const own = () => (globalThis as { turnstile?: Turnstile }).turnstile;
    // The page loaded it itself: one copy is enough.
    if (own()) return resolve(own()!);
    const script = document.createElement('script');
    script.src = trusted(new URL(TURNSTILE_SCRIPT)) as string;
    script.onload = () => (own() ? resolve(own()!) : reject(new Error(`${TURNSTILE_SCRIPT} defined no window.turnstile`)));
    script.onerror = () => {
      script.remove();
      reject(new Error(`${TURNSTILE_SCRIPT} could not be loaded (a content blocker, or script-src without https://challenges.cloudflare.com)`));
    };
    document.head.append(script);
  }).catch((error: unknown) => {
    loaded = undefined;
    throw error;
  }));
}

/**
 * A fresh Turnstile token for `siteKey` (single-use, valid 300 s: one per
 * session), from a widget drawn in a chat's panel (the one `focused` names, the
 * chat the visitor is in, or else the first asking the proxy at `base`), which stays
 * empty unless Cloudflare needs the visitor to interact. Stops when `signal`
 * aborts. `trusted` vouches for the script's address where the page enforces Trusted Types.
 */
export async function humanCheck(siteKey: string, focused: () => PageChat | undefined, base: string, signal: AbortSignal, trusted: (url: URL) => string | URL): Promise<HumanCheck> {
  // Asked once Cloudflare's script is here: a page's first question may come before its chat took in the second part.
  const chatNow = () => {
    const chat = focused();
    return chat?.isConnected ? chat : [...document.querySelectorAll<PageChat>('kagent-chat')].find((chat) => chat.endpoint?.replace(/\/+$/, '') === base);
  };
  let turnstile: Turnstile;
  try {
    turnstile = await loadTurnstile(trusted);
  } catch (error) {
    return {
      failure: {
        kind: 'not-loaded',
        detail: (error as Error).message,
        message: chatNow()?.strings.humanCheckNotLoaded ?? NOT_LOADED,
      },
    };
  }
  const box = document.createElement('div');
  box.slot = HUMAN_CHECK_SLOT;
  box.style.cssText = 'display:flex;justify-content:center';
  showIn(chatNow(), box);
  let widget: string | null | undefined;
  try {
    return await new Promise<HumanCheck>((resolve) => {
      const code: SessionErrorCode = 'HUMAN_CHECK_FAILED';
      const failed = (detail: string) => resolve({ failure: { kind: 'unauthorized', code, detail } });
      if (signal.aborted) failed('stopped');
      signal.addEventListener('abort', () => failed('stopped: no chat on the page wants the session any more'), { once: true });
      try {
        widget = turnstile.render(box, {
          sitekey: siteKey,
          action: 'kagent-session',
          // Drawn only when Cloudflare needs the visitor (managed mode's checkbox); invisible otherwise.
          appearance: 'interaction-only',
          // A failure is the visitor's to retry (the question waits, with Retry), not the widget's to repeat unseen.
          retry: 'never',
          'refresh-expired': 'never',
          'response-field': false,
          callback: (token: string) => resolve({ token }),
          'error-callback': (error: string) => (failed(`Turnstile error ${error}`), true),
          'timeout-callback': () => failed('the interactive check was not completed in time'),
          'unsupported-callback': () => failed('Turnstile does not support this browser'),
        });
      } catch (error) {
        // Cloudflare's script refused the widget outright (its exceptions name what it disliked).
        return failed(`turnstile.render() failed: ${(error as Error).message}`);
      }
      if (!widget) failed('turnstile.render() made no widget');
    });
  } finally {
    if (widget) turnstile.remove(widget);
    box.remove();
  }
}

/**
 * Puts `box` in `chat`'s panel, above the question box, through a slot the keeper adds to it (and adds again if the
 * panel was redrawn). A chat inside another element's shadow root has its light DOM there too, where Turnstile
 * cannot render: the box then goes in the page's body, drawn over the slot (`drawOver`).
 */
function showIn(chat: PageChat | undefined, box: HTMLElement): void {
  if (!chat) return void document.body.append(box);
  const panel = chat.shadowRoot?.querySelector('[part~="base"]');
  let slot = panel?.querySelector<HTMLSlotElement>(`slot[name="${HUMAN_CHECK_SLOT}"]`);
  if (panel && !slot) {
    slot = document.createElement('slot');
    slot.name = HUMAN_CHECK_SLOT;
    // After the transcript, a static node of the template: outside every part Lit redraws.
    panel.querySelector('.transcript')?.after(slot);
  }
  if (chat.getRootNode() === document) return void chat.append(box);
  document.body.append(box);
  if (slot) drawOver(box, slot);
}

/**
 * Keeps `box` (in the page's body) drawn over `room` (in a chat's panel), which is given the box's height, once a
 * frame while the box is on the page: in the top layer, above the bubble's own, and hidden while the panel is.
 */
function drawOver(box: HTMLElement, room: HTMLElement): void {
  box.popover = 'manual';
  box.style.cssText += ';position:fixed;inset:auto;margin:0;padding:0;border:0;background:none;overflow:visible;z-index:2147483647';
  box.showPopover?.();
  room.style.display = 'block';
  const frame = () => {
    if (!box.isConnected) return void (room.style.height = '');
    room.style.height = `${box.offsetHeight}px`;
    const { left, top, width } = room.getBoundingClientRect();
    Object.assign(box.style, { left: `${left}px`, top: `${top}px`, width: `${width}px`, visibility: width ? '' : 'hidden' });
    requestAnimationFrame(frame);
  };
  frame();
}
