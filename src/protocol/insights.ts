import * as v from 'valibot';
import { checkWith, type CheckResult } from './check.js';
import { jsonObject } from './fields.js';

// Insights, the proxy's own contract with its pages and its operator (not the service's): a page sends a visitor's
// feedback on an answer, and the operator reads what visitors asked. Off unless the proxy runs with insights on; a
// page learns whether feedback is taken from the features route (`feedback: true`, src/protocol/features.ts).

/** Where a page sends a visitor's feedback on an answer, under the proxy's base path: `POST`, JSON (`FeedbackRequest`). */
export const FEEDBACK_ROUTE = '/feedback';

/** Where the operator reads the report (`GET`, JSON or `?format=html`) and forgets records (`DELETE`), with the admin token. */
export const INSIGHTS_ROUTE = '/insights';

/**
 * The response header that names the recorded question, on every answer to a query while insights are on (exposed
 * to the page by CORS). A page sends it back as `questionId` with the visitor's feedback on that answer.
 */
export const QUESTION_ID_HEADER = 'Kagent-Question-Id';

/** Longest comment a feedback may carry, in characters. */
export const FEEDBACK_COMMENT_MAX = 500;

/** How a visitor rated an answer. */
export type FeedbackRating = 'up' | 'down';

/** What a question id looks like: 16 random bytes, base64url (22 characters). */
const QUESTION_ID = /^[A-Za-z0-9_-]{22}$/;

const feedbackRequestSchema = jsonObject({
  questionId: v.pipe(v.string(), v.regex(QUESTION_ID, 'must be the Kagent-Question-Id header of the answer')),
  rating: v.picklist(['up', 'down'], "must be 'up' or 'down'"),
  comment: v.optional(v.pipe(v.string(), v.maxLength(FEEDBACK_COMMENT_MAX, `must be at most ${FEEDBACK_COMMENT_MAX} characters`))),
});

/**
 * `POST {endpoint}/feedback`: a visitor's rating of one answer. Sending another for the same question replaces it
 * (one feedback per question and visitor). With visitor sessions on, it carries the session header as a query does.
 */
export type FeedbackRequest = v.InferOutput<typeof feedbackRequestSchema>;

/** Checks a feedback body: every invalid field at once. */
export function checkFeedbackRequest(body: unknown): CheckResult<FeedbackRequest> {
  return checkWith(feedbackRequestSchema, body);
}

/** Whether `id` has the shape of a question id (the proxy makes them; anything else names no question). */
export function isQuestionId(id: unknown): id is string {
  return typeof id === 'string' && QUESTION_ID.test(id);
}

/** How a recorded question ended for the visitor. */
export type QuestionOutcome =
  | { kind: 'answered'; sources: number }
  | { kind: 'refused'; status: number; reason: string }
  | { kind: 'failed'; reason: string };

/** One recorded question as the report lists it. Never an address: the visitor is a keyed hash. */
export interface QuestionRecord {
  /** The question id (`QUESTION_ID_HEADER`). */
  id: string;
  /** When it was asked, ISO 8601. */
  at: string;
  /** The agent (or datastore) asked. */
  agent: string;
  question: string;
  outcome: QuestionOutcome;
  /** Milliseconds to the answer's first byte, and to its end; absent when it never came. */
  firstByteMs?: number;
  totalMs?: number;
  /** The names of the sources the answer cited, best first. */
  sources: string[];
  /** The answer's opening (its first few hundred characters). */
  opening: string;
  /** The visitor, as a keyed hash (the same visitor gives the same hash while the proxy's key stays). */
  visitor: string;
  feedback?: { rating: FeedbackRating; comment?: string; at: string };
}

/** `GET /insights`: the report over the days kept. */
export interface InsightsReport {
  /** When the report was made, ISO 8601, and how many days back it reaches (`KAGENT_INSIGHTS_DAYS`). */
  generatedAt: string;
  days: number;
  totals: { questions: number; visitors: number; answeredWithSources: number; answeredWithoutSources: number; refused: number; failed: number; thumbsUp: number; thumbsDown: number; dropped: number };
  /** Share of questions answered with at least one source, 0 to 1 (0 with no questions). */
  shareAnsweredWithSources: number;
  /** Per UTC day, oldest first, every day of the period (zeros included). */
  perDay: { day: string; questions: number; visitors: number }[];
  /** The most asked questions, near-duplicates grouped (one example wording, how many asked it). */
  mostAsked: { question: string; count: number; variants: number }[];
  /** Answered, but with no source: content the knowledge base may lack. */
  noSource: QuestionRecord[];
  /** Thumbs down, with the comment, the answer's opening and its sources. */
  thumbsDown: QuestionRecord[];
  /** The slowest answers to the end. */
  slowest: QuestionRecord[];
}

/** `DELETE /insights`: everything, or (`?visitor=<hash>`) one visitor's records. Answered with how many went. */
export interface InsightsDeletion {
  deleted: number;
}
