// Part of the answer engine (the chat's second part): whether the proxy at an
// address asks for visitor sessions, as its features route says (proxy-features.ts),
// so that the session keeper and its solver (a chunk of their own) are fetched only from a
// proxy that has sessions on: a site without them pays one cached GET, not the code.
import { SESSION_ROUTES } from '../../../protocol/sessions/index.js';
import { chunkImport } from '../../chunk-import.js';
import type { ChatFailure } from '../../element/failure-kinds.js';
import { inUse, type PageChat } from '../chat-in-use.js';
import { failureFromNetworkError, failureFromResponse } from '../failures.js';
import { nextTask } from '../next-task.js';
import { learnFeatures } from '../proxy-features.js';
import { trustedScriptUrl } from '../trusted-types.js';
import type { KeeperNeeds } from './keeper-needs.js';
import type { VisitorSession } from './visitor-session.js';

/** The key under which the page's tab keeps what it learned of `base`'s sessions (sessionStorage: the tab's only, gone with it). */
export const sessionStorageKey = (base: string) => 'kagent-chat-session ' + base;
/** The key of a challenge solved in idle time and not yet spent (the keeper's), kept for the tab's next pages. */
export const solvedStorageKey = (base: string) => sessionStorageKey(base) + ' solved';

/** What the keeper's chunk uses of this one, handed to it (keeper-needs.ts says why). */
const keeperNeeds: KeeperNeeds = { readFailure: failureFromResponse, networkFailure: failureFromNetworkError, storageKey: sessionStorageKey, solvedKey: solvedStorageKey, nextTask, trustedScriptUrl, routes: SESSION_ROUTES, inUse, chunkImport };

/** The session keeper's chunk, imported once it can be. */
const importKeeper = chunkImport(() => import('./visitor-session.js'), 'visitorSessionFor');

/** Sessions are on, but their keeper's chunk could not be fetched: the question is not sent without one. */
export type KeeperMissing = { failure: ChatFailure };

const keepers = new Map<string, Promise<VisitorSession | KeeperMissing | undefined>>();

/**
 * The session keeper of the proxy at `endpoint`, or `undefined` where its sessions are off (as its features route
 * says, or the page turned that question off: `pageSaysOff`). `on`: the proxy refused a query for want of a session,
 * so they are on whatever was learned before. Never rejects: with the keeper's chunk out of reach, a `failure` that
 * names the file to copy (the next question tries again).
 */
export function sessionFor(endpoint: string, on = false, pageSaysOff = false): Promise<VisitorSession | KeeperMissing | undefined> {
  const base = endpoint.replace(/\/+$/, '');
  const known = keepers.get(base);
  if (known && !on) return known;
  const keeper = (async () => {
    const sessions = on || (await sessionsOn(base, pageSaysOff));
    // Not known (the proxy out of reach): this question goes without a session, and the next asks again.
    if (sessions === undefined) keepers.delete(base);
    if (!sessions) return undefined;
    try {
      return (await importKeeper()).visitorSessionFor(base, keeperNeeds);
    } catch (error) {
      keepers.delete(base);
      // For the site's developer (the question's console warning): which file the proxy's sessions need.
      const detail = `${error}: the proxy asks for visitor sessions: copy their file (kagent-chat-sessions-*.js) beside kagent-chat.js, with all the build's files`;
      return { failure: { kind: navigator.onLine ? 'not-loaded' : 'offline', detail } } satisfies KeeperMissing;
    }
  })();
  keepers.set(base, keeper);
  return keeper;
}

/** Whether `base` asks for sessions: what this tab holds of it (a token, a solved challenge, sessions off), or else its features route (`undefined`: it could not be asked). */
async function sessionsOn(base: string, pageSaysOff: boolean): Promise<boolean | undefined> {
  try {
    const kept = JSON.parse(sessionStorage.getItem(sessionStorageKey(base)) ?? 'null') as { off?: true; token?: string } | null;
    if (kept?.off) return false;
    // A token, or a challenge already solved (an earlier page of this tab): on, without asking.
    if (kept?.token || sessionStorage.getItem(solvedStorageKey(base))) return true;
  } catch {
    // No storage (a sandboxed frame) or a damaged entry: ask the proxy.
  }
  const { features, passing } = await learnFeatures(base, pageSaysOff);
  return passing ? undefined : features.sessions;
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
    if (chat.endpoint) void sessionFor(chat.endpoint, false, chat.proxyFeatures === 'off').then((keeper) => keeper && 'prepare' in keeper && keeper.prepare(chat, start));
  };
  chat.addEventListener('focusin', () => use(true));
  inUse.chat = chat;
  // A chat focused before this part had loaded (no listener yet) is taken as focused then.
  const whenIdle = () => use(chat.matches(':focus-within'));
  if (typeof requestIdleCallback === 'function') requestIdleCallback(whenIdle, { timeout: 2000 });
  else setTimeout(whenIdle, 200);
}
