// Part of the answer engine (the chat's second part): the visitor session a proxy
// with sessions on asks of every query, earned by solving its challenge (docs/proxy.md,
// Visitor sessions). One keeper per proxy address, shared by the chats on the page. A chunk of
// its own with the solver, fetched by gate.ts only from a proxy with sessions on.
import { needsNewChallenge, type SessionChallenge, type SessionErrorCode, type SessionSolution } from '../../../protocol/sessions/index.js';
import type { ChatFailure } from '../../element/failure-kinds.js';
import type { ChatStrings } from '../../element/strings.js';
import type { PageChat } from '../chat-in-use.js';
import type { KeeperNeeds } from './keeper-needs.js';
import type { HumanCheck } from './human-check.js';
import { solveChallenge, type SolvedBy } from './solver.js';

/** The human check's chunk, imported once it can be (with the gate's `chunkImport`: this chunk imports nothing). */
let importHumanCheck: (() => Promise<typeof import('./human-check.js')>) | undefined;

/** At this many questions left in a visitor session's window, or fewer, the chat says how many. */
export const FEW_QUESTIONS_LEFT = 2;

/** A session could not be earned, or the proxy refused a fresh one too: the question was not answered, and Retry tries again. */
export const NO_SESSION = 'The chat could not start a conversation with the assistant, so your question was not sent. Retry in a moment.';

/** The keeper's words in English, the defaults of the chat's `strings` (docs/proxy.md, Visitor sessions): here, not in the first part, which every visitor fetches. */
export const SESSION_WORDS = {
  questionsLeft: (left: number) => (left === 1 ? '1 question left for now.' : `${left} questions left for now.`),
  lastQuestion: 'That was the last question you can ask for now.',
  // A rate limit's message is followed by the chat's own count-down ("You can ask again in 4 min 10 s.").
  sessionLimited: 'You have asked all the questions this chat allows for now.',
  sessionBusy: 'An answer to you is still on its way in another window.',
  sessionMintLimited: 'This chat has been started too many times from your network for now.',
  noSession: NO_SESSION,
  humanCheckFailed: "This site's check that you are a person did not pass, so your question was not sent. Reload the page, then retry.",
  humanCheckUnavailable: "This site's check that you are a person could not be reached, so your question was not sent. Retry in a moment.",
} satisfies Partial<ChatStrings>;
type SessionWords = typeof SESSION_WORDS;

/**
 * The entry of `SESSION_WORDS` named after a refusal's code (`SESSION_MINT_LIMITED`: `sessionMintLimited`), if it has
 * one: the session's limits (`SESSION_*`) and the human check's refusals (`HUMAN_CHECK_*`); the rest get `noSession`.
 */
function wordsFor(code = ''): RefusalWords | undefined {
  const key = code.toLowerCase().replace(/_(.)/g, (_, letter: string) => letter.toUpperCase());
  return /^(session|human)/.test(key) && key in SESSION_WORDS ? (key as RefusalWords) : undefined;
}
type RefusalWords = Extract<keyof SessionWords, `session${string}` | `human${string}`>;
/** `sessionMintLimited` as `SESSION_MINT_LIMITED`. */
type CodeOf<Key extends string> = Key extends `${infer First}${infer Rest}` ? `${First extends Lowercase<First> ? '' : '_'}${Uppercase<First>}${CodeOf<Rest>}` : '';
/** Fails the type check should an entry of `RefusalWords` be named after no code of the proxy's. */
type NamedAfterCodes<Codes extends SessionErrorCode> = Codes;
type _RefusalCodes = NamedAfterCodes<CodeOf<RefusalWords>>;

/** A new session is earned once less than this share of the token's life is left. */
const RENEW_SHARE = 0.2;
/** While a session is being earned, how often the keeper looks whether any chat that wants it is still on the page. */
const WATCH_MS = 1000;

/** A token, with when it runs out and when to earn the next, in ms on this page's clock (`Date.now()`, never the proxy's). */
interface HeldToken {
  token: string;
  renewAt: number;
  expiresAt: number;
  /** Where its challenge was solved (kept for whoever looks into the tab's storage: a site's developer, the tests). */
  solvedBy?: SolvedBy;
}

/** The challenge route's answer: the challenge's parts, and its word on the human check (done when the session is started). */
interface ChallengeAnswer {
  challenges?: SessionChallenge[];
  humanCheck?: unknown;
  turnstileSiteKey?: string;
  expiresInSeconds?: number;
}

/** A challenge solved in idle time and not yet turned into a session: the route's answer, with the solutions and when it runs out (this page's clock). */
interface SolvedChallenge extends ChallengeAnswer {
  challenges: SessionChallenge[];
  solutions: SessionSolution[];
  solvedBy: SolvedBy;
  expiresAt: number;
}

/** What a question waits for: a token to send, none (sessions are off), or why none could be earned. */
export type SessionTicket = { token: string | undefined } | { failure: ChatFailure };

/** What an earning in idle time ends with: a solved challenge, kept for the visitor's first focus or question. */
const SOLVED_ONLY: SessionTicket = { token: undefined };

/** A solved challenge is used for a session only while this much of its life is left, so that it reaches the proxy in time. */
const SOLVED_MARGIN_MS = 30_000;

/**
 * The visitor session of one proxy, whose features route said sessions are on: learns
 * if they were turned off since (a 404 from the challenge route means off; a query refused
 * for want of a session means on again), earns a token (in Workers where it may), keeps it in the
 * tab's sessionStorage so the site's next page needs none, and earns the next
 * before it runs out.
 */
export class VisitorSession {
  readonly #base: string;
  readonly #needs: KeeperNeeds;
  /** Where the tab keeps the token (or that sessions are off), and the challenge solved in idle time. */
  readonly #tokenKey: string;
  readonly #solvedKey: string;
  #off?: boolean;
  /** The last try failed (a limit, a refused check): idle time and focus wait for a question to try again. */
  #failed?: boolean;
  #held: HeldToken | undefined;
  /**
   * Solved in idle time, not yet a session: a session is started only once a visitor shows they want the chat
   * (focus, a question), so page views alone use none of the address's sessions an hour (an office behind one
   * address, a reader opening many tabs).
   */
  #solved: SolvedChallenge | undefined;
  #earning: Promise<SessionTicket> | undefined;
  /** Whether the earning under way is to end with a session (someone wants one), not only a solved challenge. */
  #start?: boolean;
  /** What wants the session being earned: chats on the page, and questions waiting for it. It stops once none is left. */
  #wanted = new Set<Element | AbortSignal>();
  /** The chat last given to `prepare` (used last): where a human check is shown, and whose `strings` word what the keeper says. */
  #chat: PageChat | undefined;
  /** This page's questions to the proxy, in turn: each waits for the ones before it to end (`turn`). */
  #turns: Promise<unknown> = Promise.resolve();

  constructor(base: string, needs: KeeperNeeds) {
    this.#base = base;
    this.#needs = needs;
    this.#tokenKey = needs.storageKey(base);
    this.#solvedKey = needs.solvedKey(base);
    try {
      // (A tab that remembers sessions off gets no keeper: gate.ts reads that, and makes one only once a
      // query is refused for want of a session, which `renew` then earns.)
      const kept = JSON.parse(sessionStorage.getItem(this.#tokenKey) ?? 'null') as HeldToken | null;
      if (typeof kept?.token === 'string' && kept.expiresAt > Date.now()) this.#held = kept;
      const solved = JSON.parse(sessionStorage.getItem(this.#solvedKey) ?? 'null') as SolvedChallenge | null;
      if (isChallenge(solved?.challenges)) this.#solved = solved;
    } catch {
      // No storage (a sandboxed frame) or a damaged entry: start afresh.
    }
  }

  /** `failure` in the visitor's words where it is one of the session's limits (the chat adds its count-down). */
  explain(failure: ChatFailure): ChatFailure {
    // Refusals that are limits (`SESSION_*`) are said in their own words even where a query was refused for them.
    const words = wordsFor(failure.code);
    return !failure.message && words?.startsWith('session') ? { ...failure, message: this.#say(words) as string } : failure;
  }

  /** A query refused for want of a session even with a fresh one: said plainly (the question is kept for Retry). */
  refusedAgain(failure: ChatFailure): ChatFailure {
    return { ...failure, message: this.#say('noSession') };
  }

  /** "n questions left" once `FEW_QUESTIONS_LEFT` or fewer are left in the session's window (`header`: an answer's `Kagent-Questions-Left`). */
  questionsLeft(header: string | null): string | undefined {
    const left = +header!;
    // Digits only (null is tested as "null"): an absent, empty or malformed header says nothing.
    if (!/^\d+$/.test(header!) || left > FEW_QUESTIONS_LEFT) return undefined;
    return left ? this.#say('questionsLeft')(left) : this.#say('lastQuestion');
  }

  /**
   * The chat that shows the human check and whose `strings` word what the keeper says: the one last prepared, or
   * else (a question asked before idle time prepared any) the chat in use where it asks this proxy.
   */
  #chatNow(): PageChat | undefined {
    const used = this.#needs.inUse.chat;
    return this.#chat?.isConnected || used?.endpoint?.replace(/\/+$/, '') !== this.#base ? this.#chat : used;
  }

  /** One of the keeper's words: the chat's own (its `strings`), or else the English default. */
  #say<K extends keyof SessionWords>(key: K): SessionWords[K] {
    return (this.#chatNow()?.strings[key] as SessionWords[K] | undefined) ?? SESSION_WORDS[key];
  }

  /** Why a visitor session could not be earned (so the question was not sent), in the visitor's words. */
  #unearned(failure: ChatFailure): SessionTicket {
    return { failure: { ...failure, message: failure.message ?? this.#say(wordsFor(failure.code) ?? 'noSession') as string } };
  }

  /**
   * Unless a session is held and not near its end: in idle time, solves a challenge for the next session; once the
   * chat is focused (`start`), starts that session too.
   */
  prepare(chat: PageChat, start: boolean): void {
    this.#chat = chat;
    if (this.#off || this.#failed || (this.#held && Date.now() < this.#held.renewAt)) return;
    if (!start && this.#fresh) return;
    this.#wanted.add(chat);
    void this.#earn(start);
  }

  /**
   * The token a question goes with: the one held (one near its end is still
   * sent, and the next is earned meanwhile), or, with none, one earned now:
   * the question waits for it rather than being refused first.
   */
  async ticket(signal: AbortSignal): Promise<SessionTicket> {
    if (this.#off) return { token: undefined };
    const held = this.#held;
    if (held && Date.now() < held.expiresAt) {
      if (Date.now() >= held.renewAt) {
        // The question that noticed wants the next session (an earning nobody wants stops).
        this.#wanted.add(signal);
        void this.#earn();
      }
      return { token: held.token };
    }
    return this.#wait(signal);
  }

  /**
   * Waits until no other question of this page to the proxy is under way, or `signal` aborts; resolves with what
   * ends this one's turn. The proxy streams one answer a session at a time and refuses another meanwhile
   * (SESSION_BUSY): two chats of one page asking it at once would otherwise refuse each other, and be told an
   * answer was on its way "in another window".
   */
  async turn(signal: AbortSignal): Promise<() => void> {
    let end!: () => void;
    const mine = new Promise<void>((resolve) => (end = resolve));
    const before = this.#turns;
    // The next waits for this one and every one before it, even should this one stop waiting first.
    this.#turns = before.then(() => mine);
    if (!signal.aborted) await Promise.race([before, new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))]);
    return end;
  }

  /** The proxy refused the token a question carried (or its lack of one): forget it, and earn a new one for the one more try. */
  async renew(refused: string | undefined, signal: AbortSignal): Promise<SessionTicket> {
    this.#off = false;
    if (this.#held?.token === refused) this.#store(this.#tokenKey, (this.#held = undefined));
    // Already renewed meanwhile (another question, or the renewal near the end): that one is tried.
    else if (this.#held && Date.now() < this.#held.expiresAt) return { token: this.#held.token };
    return this.#wait(signal);
  }

  async #wait(signal: AbortSignal): Promise<SessionTicket> {
    this.#wanted.add(signal);
    try {
      let ticket: SessionTicket;
      // An earning in idle time that ended as the question came has left its solved challenge: start the session from it.
      do ticket = await this.#earn();
      while (ticket === SOLVED_ONLY);
      return ticket;
    } finally {
      this.#wanted.delete(signal);
    }
  }

  /** Challenge, solve and (`start`) session: one at a time, shared by whoever asks meanwhile. */
  #earn(start = true): Promise<SessionTicket> {
    this.#start ||= start;
    return (this.#earning ??= this.#challengeAndSolve().then((ticket) => {
      this.#earning = undefined;
      this.#start = false;
      this.#failed = 'failure' in ticket;
      return ticket;
    }));
  }

  async #challengeAndSolve(): Promise<SessionTicket> {
    const { routes, readFailure } = this.#needs;
    const stop = new AbortController();
    // Nobody left to use it (every chat removed, every waiting question stopped): the work stops.
    const watch = setInterval(() => {
      for (const wanted of this.#wanted) if ('aborted' in wanted ? !wanted.aborted : wanted.isConnected) return;
      stop.abort();
    }, WATCH_MS);
    try {
      // A refused challenge (expired while solved on a slow device, or replayed) gets one more.
      for (let attempt = 0; ; attempt++) {
        let solved = this.#fresh;
        let checking: Promise<HumanCheck> | undefined;
        if (!solved) {
          const asked = await this.#post(routes.challenge, {}, stop.signal);
          if (asked.status === 404) {
            // Sessions are off here (turned off since the browser kept the features route's answer): questions go without a token, as they always did.
            this.#off = true;
            this.#store(this.#tokenKey, { off: true });
            return { token: undefined };
          }
          if (!asked.ok) return this.#unearned(await readFailure(asked));
          const answer = (await asked.json().catch(() => undefined)) as ChallengeAnswer | undefined;
          if (!isChallenge(answer?.challenges)) return this.#unreadable(asked, 'challenge');
          // The proxy asks for Cloudflare Turnstile too: for a session started now, a fresh token got while the challenge is solved.
          if (this.#start) checking = this.#check(answer, stop.signal);
          const expiresAt = Date.now() + (answer.expiresInSeconds ?? 300) * 1000;
          const { solutions, by } = await solveChallenge(answer.challenges, stop.signal, this.#needs);
          if (!solutions) return { failure: { kind: 'unreachable', detail: 'Stopped: no chat on the page wants the session any more' } };
          solved = { ...answer, challenges: answer.challenges, solutions, solvedBy: by, expiresAt };
          this.#store(this.#solvedKey, (this.#solved = solved));
          // Solved in idle time, nobody has asked for a session yet: it is started when somebody does.
          if (!this.#start) return SOLVED_ONLY;
        }
        const checked = await (checking ?? this.#check(solved, stop.signal));
        if (checked && 'failure' in checked) return this.#unearned(checked.failure);
        // Spent now, whatever the answer: a solution is accepted once.
        this.#store(this.#solvedKey, (this.#solved = undefined));
        const granted = await this.#post(routes.session, { challenges: solved.challenges, solutions: solved.solutions, turnstileToken: checked?.token }, stop.signal);
        if (granted.ok) {
          const grant = (await granted.json().catch(() => undefined)) as { token?: unknown; expiresInSeconds?: unknown } | undefined;
          if (typeof grant?.token !== 'string' || typeof grant.expiresInSeconds !== 'number') {
            return this.#unreadable(granted, 'session');
          }
          const now = Date.now();
          const life = grant.expiresInSeconds * 1000;
          this.#store(this.#tokenKey, (this.#held = { token: grant.token, renewAt: now + life * (1 - RENEW_SHARE), expiresAt: now + life, solvedBy: solved.solvedBy }));
          return { token: grant.token };
        }
        const failure = await readFailure(granted);
        if (attempt > 0 || !needsNewChallenge(failure.code)) return this.#unearned(failure);
      }
    } catch (error) {
      return { failure: this.#needs.networkFailure(error) };
    } finally {
      clearInterval(watch);
      this.#wanted.clear();
    }
  }

  /** The solved challenge, while enough of its life is left to start a session with it. */
  get #fresh(): SolvedChallenge | undefined {
    return this.#solved && Date.now() < this.#solved.expiresAt - SOLVED_MARGIN_MS ? this.#solved : undefined;
  }

  /** The human check's token for a session started now, where the proxy asks for one. */
  #check({ humanCheck, turnstileSiteKey }: ChallengeAnswer, signal: AbortSignal): Promise<HumanCheck> | undefined {
    if (humanCheck !== 'turnstile') return undefined;
    importHumanCheck ??= this.#needs.chunkImport(() => import('./human-check.js'), 'humanCheck');
    const checking = importHumanCheck().then(({ humanCheck: check }) => check(turnstileSiteKey ?? '', () => this.#chatNow(), this.#base, signal, this.#needs.trustedScriptUrl));
    checking.catch(() => {});
    return checking;
  }

  /**
   * Keeps `value` in the tab's sessionStorage under `key` for the site's next pages, or forgets what is there (no
   * `value`). Without storage (a sandboxed frame), or with it full, this page's memory is all there is.
   */
  #store(key: string, value: HeldToken | SolvedChallenge | { off: true } | undefined): void {
    try {
      if (value) sessionStorage.setItem(key, JSON.stringify(value));
      else sessionStorage.removeItem(key);
    } catch {
      // No storage, or full: see above.
    }
  }

  /** A proxy's answer this chat could not read, as the reason no session was earned. */
  #unreadable(response: Response, what: string): SessionTicket {
    return this.#unearned({ kind: 'unreadable', status: response.status, detail: `The proxy sent a ${what} this chat could not read` });
  }

  #post(route: string, body: unknown, signal: AbortSignal): Promise<Response> {
    return fetch(this.#base + route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal });
  }
}

/** Parts, each with the fields the solver reads; the rest is sent back as it came. */
function isChallenge(value: unknown): value is SessionChallenge[] {
  return Array.isArray(value) && value.length > 0 && value.every((part: { parameters?: Record<string, unknown> } | undefined) => {
    const p = part?.parameters;
    return Boolean(p) && ['nonce', 'salt'].every((name) => typeof p![name] === 'string') && ['cost', 'keyLength', 'keyBelow'].every((name) => typeof p![name] === 'number');
  });
}

const keepers = new Map<string, VisitorSession>();

/** The session keeper of the proxy at `base` (one per address on the page); `needs` as for the constructor. */
export function visitorSessionFor(base: string, needs: KeeperNeeds): VisitorSession {
  let keeper = keepers.get(base);
  if (!keeper) keepers.set(base, (keeper = new VisitorSession(base, needs)));
  return keeper;
}
