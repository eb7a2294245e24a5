// Every piece of text the visitor sees or hears, in one table, so a language
// or a site's own wording is one object to supply.
import type { FailureKind } from './failure-kinds.js';

export interface ChatStrings {
  /** Accessible name of the whole chat. */
  chatLabel: string;
  /** Shown before the first question. */
  emptyState: string;
  /** Title of the chat when the page gives no `heading`. */
  heading: string;
  /** Name of the bubble's launcher button while the chat is closed. */
  openChat: string;
  /** Name of the buttons that close the bubble's chat. */
  closeChat: string;
  /** Names the starter questions. */
  suggestionsLabel: string;
  /** The Copy button under an answer, and what it says once copied. */
  copy: string;
  copied: string;
  /** Shown when the page set no `agent-id` or `endpoint`. */
  notConfigured: string;
  /** Label of the question box. */
  questionLabel: string;
  questionPlaceholder: string;
  send: string;
  stop: string;
  retry: string;
  newConversation: string;
  /** Screen-reader prefix of a visitor's message. */
  visitorSaid: string;
  /** Screen-reader prefix of an answer. */
  agentSaid: string;
  /** Announced while an answer is on its way. */
  answering: string;

  // The words of an answer's sources and its `[n]` markers: optional, their English defaults with the code that draws
  // them (the second part), so that this table, in the first part every visitor fetches, carries none of them.
  /** Heading of the sources under an answer. Default: `Sources` */
  sourcesHeading?: string;
  /** Used when a source has no name. Default: `Untitled source` */
  unnamedSource?: string;
  /** Default: `page 3 of 10`, or `page 3` */
  sourcePage?: (page: number, totalPages?: number) => string;
  /** `score` is between 0 and 1. Default: `91% relevant` */
  sourceRelevance?: (score: number) => string;
  /** Accessible name of a `[n]` citation marker. Default: `Source 2: Guide.pdf · page 3` */
  citationLabel?: (number: number, sourceName: string) => string;
  /** Under an answer that was cut off. */
  answerIncomplete: string;
  /** Under an answer the visitor stopped. */
  answerStopped: string;
  /** One clear message per kind of failure. */
  failures: Record<FailureKind, string>;
  /** While a rate limit lasts. */
  retryIn: (seconds: number) => string;
  /** Once it is over. */
  retryNow: string;

  // The words of visitor sessions, the site's daily budget and the human check (docs/widget.md, Visitor sessions):
  // optional, because their English defaults come with the code that uses them (the second part, the session keeper's
  // chunk, the human check's), so that this table, in the first part every visitor fetches, carries none of them.
  /** Under an answer when `left` (1 or 2) questions are left in the visitor's session. Default: `2 questions left for now.` */
  questionsLeft?: (left: number) => string;
  /** Under the answer to the last question the visitor's session allows for now. Default: `That was the last question you can ask for now.` */
  lastQuestion?: string;
  /** The session asked all the questions its window allows (`SESSION_LIMITED`); `retryIn`'s count-down follows. */
  sessionLimited?: string;
  /** An answer to this session is still streaming elsewhere (`SESSION_BUSY`); `retryIn`'s count-down follows. */
  sessionBusy?: string;
  /** The visitor's network started all the sessions it may for now (`SESSION_MINT_LIMITED`); `retryIn`'s count-down follows. */
  sessionMintLimited?: string;
  /** No session could be earned, or the proxy refused a fresh one too: the question was not sent (Retry tries again). */
  noSession?: string;
  /**
   * The site's questions for today are spent (`DAILY_BUDGET_SPENT`). `at`: when to come back, in the visitor's
   * locale and clock (`toLocaleTimeString`); `hours` and `minutes`: the wait until then.
   * Default: `This site's questions for today are used up. Please come back after 00:00 (in 3 h 20 min).`
   */
  dailyBudgetSpent?: (at: string, hours: number, minutes: number) => string;
  /** The human check (Cloudflare Turnstile) did not pass, in the browser or at the proxy (`HUMAN_CHECK_FAILED`). */
  humanCheckFailed?: string;
  /** The proxy could not reach the human check's verification (`HUMAN_CHECK_UNAVAILABLE`). */
  humanCheckUnavailable?: string;
  /** Cloudflare's script for the human check could not be loaded (a content blocker, the page's policy, offline). */
  humanCheckNotLoaded?: string;

  // The words of the feedback buttons under an answer (docs/widget.md, Answer feedback): optional, their English
  // defaults in the second part, which draws the buttons.
  /** Before the thumbs. Default: `Helpful?` */
  feedbackQuestion?: string;
  /** Accessible name of the thumbs-up. Default: `Helpful` */
  feedbackUp?: string;
  /** Accessible name of the thumbs-down. Default: `Not helpful` */
  feedbackDown?: string;
  /** Label of the optional field a thumbs-down opens (its button says `send`). Default: `What was missing?` */
  feedbackComment?: string;
  /** Announced after the chosen thumb's name. Default: `Thanks for your feedback.` */
  feedbackThanks?: string;
}

/** `65` -> `1 min 5 s`. */
export function formatSeconds(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const rest = seconds % 60;
  return `${Math.floor(seconds / 60)} min${rest ? ` ${rest} s` : ''}`;
}

/** A `strings` override: any of the texts, including any of the failure messages. */
export type ChatStringsOverride = Partial<Omit<ChatStrings, 'failures'>> & { failures?: Partial<ChatStrings['failures']> };

/** The English table with `override` on top. */
export function withStrings(override: ChatStringsOverride | undefined): ChatStrings {
  return override ? { ...ENGLISH, ...override, failures: { ...ENGLISH.failures, ...override.failures } } : ENGLISH;
}

export const ENGLISH: ChatStrings = {
  chatLabel: 'Chat with our assistant',
  emptyState: 'Ask a question and the answer will cite the documents it comes from.',
  heading: 'Assistant',
  openChat: 'Open the chat',
  closeChat: 'Close the chat',
  suggestionsLabel: 'Suggested questions',
  copy: 'Copy',
  copied: 'Copied',
  notConfigured: 'This chat is not set up yet.',
  questionLabel: 'Your question',
  questionPlaceholder: 'Ask a question…',
  send: 'Send',
  stop: 'Stop',
  retry: 'Retry',
  newConversation: 'New conversation',
  visitorSaid: 'You asked:',
  agentSaid: 'Assistant:',
  answering: 'The assistant is answering…',
  answerIncomplete: 'This answer was cut off before it was complete.',
  answerStopped: 'You stopped this answer.',
  failures: {
    'bad-request': 'The assistant could not accept this question. Try rewording it.',
    unauthorized: 'This chat is not allowed to reach the assistant right now.',
    'usage-limit': 'The assistant has reached its usage limit. Please try again later.',
    'not-found': 'This assistant could not be found. It may have been removed.',
    'rate-limited': 'Too many questions for now.',
    server: 'The assistant ran into a problem. Please try again in a moment.',
    offline: 'You seem to be offline. Check your connection, then retry.',
    unreachable: 'The assistant could not be reached. Check your connection, then retry.',
    incomplete: 'The answer was cut off before it was complete.',
    'stream-error': 'The assistant ran into a problem while answering.',
    unreadable: 'The assistant sent a reply this chat could not read.',
    // Offline, or a file of the chat missing from the site (the console names it): no advice the visitor can act on.
    'not-loaded': 'Part of this chat could not be loaded, so your question was not sent. Please try again later.',
  },
  retryIn: (seconds) => `You can ask again in ${formatSeconds(seconds)}.`,
  retryNow: 'You can ask again now.',
};
