// Part of the answer engine (the chat's second part): whether the proxy at an
// address asks for visitor sessions, learned with one request, so that the
// session keeper and its solver (a chunk of their own) are fetched only from a
// proxy that has sessions on: a site without them pays one 404, not the code.
import { SESSION_ROUTES } from '../../../protocol/sessions/index.js';
import { inUse, type PageChat } from '../chat-in-use.js';
import { failureFromNetworkError, failureFromResponse } from '../failures.js';
import { nextTask } from '../next-task.js';
import { trustedScriptUrl } from '../trusted-types.js';
import type { KeeperNeeds } from './keeper-needs.js';
import type { VisitorSession } from './visitor-session.js';

/** The key under which the page's tab keeps what it learned of `base`'s sessions (sessionStorage: the tab's only, gone with it). */
export const sessionStorageKey = (base: string) => 'kagent-chat-session ' + base;
/** The key of a challenge solved in idle time and not yet spent (the keeper's), kept for the tab's next pages. */
export const solvedStorageKey = (base: string) => sessionStorageKey(base) + ' solved';

/** What the keeper's chunk uses of this one, handed to it (keeper-needs.ts says why). */
const keeperNeeds: KeeperNeeds = { readFailure: failureFromResponse, networkFailure: failureFromNetworkError, storageKey: sessionStorageKey, solvedKey: solvedStorageKey, nextTask, trustedScriptUrl, routes: SESSION_ROUTES, inUse };

const keepers = new Map<string, Promise<VisitorSession | undefined>>();

/**
 * The session keeper of the proxy at `endpoint`, or `undefined` where its
 * sessions are off (its challenge route answered 404 or a page, now or earlier in this
 * tab). `on`: the proxy refused a query for want of a session, so they are on
 * whatever was learned before. Never rejects: with the proxy out of reach, `undefined`.
 */
export function sessionFor(endpoint: string, on = false): Promise<VisitorSession | undefined> {
  const base = endpoint.replace(/\/+$/, '');
  const known = keepers.get(base);
  if (known && !on) return known;
  const keeper = (async () => {
    try {
      const challenge = on ? undefined : await probe(base);
      if (challenge !== null) return (await import('./visitor-session.js')).visitorSessionFor(base, keeperNeeds, challenge);
    } catch {
      // A network failure says nothing (this question goes without a session): the next question asks again.
      keepers.delete(base);
    }
  })();
  keepers.set(base, keeper);
  return keeper;
}

/**
 * What the tab knows of `base`, or the challenge route's answer: `null` for
 * sessions off; `undefined` to let the keeper ask (a session kept, or none
 * known); a Response the keeper takes as its first challenge.
 */
async function probe(base: string): Promise<Response | null | undefined> {
  try {
    const kept = JSON.parse(sessionStorage.getItem(sessionStorageKey(base)) ?? 'null') as { off?: true; token?: string } | null;
    if (kept?.off) return null;
    // A token, or a challenge already solved (an earlier page of this tab): the keeper needs no challenge yet.
    if (kept?.token || sessionStorage.getItem(solvedStorageKey(base))) return undefined;
  } catch {
    // No storage (a sandboxed frame) or a damaged entry: ask the proxy.
  }
  const asked = await fetch(base + SESSION_ROUTES.challenge, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  // Off: a 404, or a page instead of JSON (a host's catch-all route, such as a single-page app's fallback to its
  // index.html, in front of a proxy without sessions). Were they on after all, the first query's refusal says so.
  if (asked.status != 404 && /json/.test(asked.headers.get('content-type')!)) return asked;
  try {
    sessionStorage.setItem(sessionStorageKey(base), JSON.stringify({ off: true }));
  } catch {
    // No storage: this page remembers it (the keepers' map).
  }
  return null;
}

/**
 * A chat that took in the second part (once), wherever it is (in another element's shadow root too, open or closed,
 * where no query of the page reaches): its challenge is solved once the browser is idle, and its session started when
 * the visitor focuses it (where the proxy asks for sessions).
 */
export function joinSessions(chat: PageChat): void {
  const use = (start: boolean) => {
    // (Idle time may come after the chat left the page.)
    if (!chat.isConnected) return;
    inUse.chat = chat;
    if (chat.endpoint) void sessionFor(chat.endpoint).then((keeper) => keeper?.prepare(chat, start));
  };
  chat.addEventListener('focusin', () => use(true));
  inUse.chat = chat;
  // A chat focused before this part had loaded (no listener yet) is taken as focused then.
  const whenIdle = () => use(chat.matches(':focus-within'));
  if (typeof requestIdleCallback === 'function') requestIdleCallback(whenIdle, { timeout: 2000 });
  else setTimeout(whenIdle, 200);
}
