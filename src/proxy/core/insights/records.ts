import type { FeedbackRating, QuestionOutcome, QuestionRecord } from '../../../protocol/index.js';

// How insights are kept in the store: one list a UTC day, one JSON value per question or feedback, the whole list
// expiring `days` after its day. Feedback is a value of its own (the last one per question and visitor counts),
// so recording never reads before it writes.

/** A question as stored. */
export interface StoredQuestion extends Omit<QuestionRecord, 'feedback'> {
  t: 'q';
}

/** A question's parts for its stored text: its opening already written as a JSON string literal. */
export interface QuestionParts extends Omit<StoredQuestion, 't' | 'opening'> {
  openingJson: string;
}

/**
 * A question's stored value, written once as the JSON text the store keeps (the same text `JSON.stringify` gave of the
 * record object, keys in the same order, so records written before read the same), rather than built as an object and
 * stringified: the id, time and hash are plain ASCII by construction, the opening comes as JSON already.
 */
export function questionText(q: QuestionParts): string {
  const outcome = q.outcome.kind === 'answered' ? `{"kind":"answered","sources":${q.outcome.sources}}` : JSON.stringify(q.outcome);
  const times = (q.firstByteMs === undefined ? '' : `,"firstByteMs":${q.firstByteMs}`) + (q.totalMs === undefined ? '' : `,"totalMs":${q.totalMs}`);
  return `{"t":"q","id":"${q.id}","at":"${q.at}","agent":${JSON.stringify(q.agent)},"question":${JSON.stringify(q.question)},"outcome":${outcome},"sources":${q.sources.length ? JSON.stringify(q.sources) : '[]'},"opening":${q.openingJson},"visitor":"${q.visitor}"${times}}`;
}

/** A feedback as stored. */
export interface StoredFeedback {
  t: 'f';
  /** The question's id. */
  id: string;
  visitor: string;
  rating: FeedbackRating;
  comment?: string;
  at: string;
}

export type StoredValue = StoredQuestion | StoredFeedback;

const DAY_MS = 86_400_000;

/** The store's key for a UTC day's list (`2026-11-29`). */
export function dayKey(day: string): string {
  return `insights:${day}`;
}

/** The UTC day of a time, as `YYYY-MM-DD`. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The last `count` UTC days up to the one of `now`, oldest first. */
export function lastDays(now: number, count: number): string[] {
  const days: string[] = [];
  for (let i = count - 1; i >= 0; i--) days.push(dayOf(now - i * DAY_MS));
  return days;
}

/** How long a value added now stays: to the end of its day, then `days` more. */
export function keepMs(now: number, days: number): number {
  return DAY_MS - (now % DAY_MS) + days * DAY_MS;
}

/** A stored value read back, or `undefined` for anything that is not one (never trusted further than its shape). */
export function readStored(text: string): StoredValue | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.id !== 'string' || typeof v.visitor !== 'string' || typeof v.at !== 'string') return undefined;
  if (v.t === 'f') return v.rating === 'up' || v.rating === 'down' ? (v as unknown as StoredFeedback) : undefined;
  if (v.t !== 'q' || typeof v.question !== 'string' || typeof v.agent !== 'string' || !isOutcome(v.outcome)) return undefined;
  return { ...(v as unknown as StoredQuestion), sources: Array.isArray(v.sources) ? v.sources.filter((s): s is string => typeof s === 'string') : [], opening: typeof v.opening === 'string' ? v.opening : '' };
}

function isOutcome(value: unknown): value is QuestionOutcome {
  const o = value as Partial<Record<string, unknown>> | null;
  if (!o || typeof o !== 'object') return false;
  if (o.kind === 'answered') return typeof o.sources === 'number';
  return (o.kind === 'refused' || o.kind === 'failed') && typeof o.reason === 'string';
}
