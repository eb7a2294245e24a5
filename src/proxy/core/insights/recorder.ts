import { QUESTION_ID_HEADER, readErrorBody, type FeedbackRequest, type QuestionOutcome } from '../../../protocol/index.js';
import type { RateLimitStore } from '../../stores/store.js';
import type { Log } from '../log.js';
import type { AnswerWatch, RelayOutcome } from '../relay.js';
import type { ProxyAnswer } from '../responses.js';
import { AnswerTap, OPENING_LENGTH, sourceNames } from './answer-tap.js';
import { dayKey, dayOf, keepMs, lastDays, readStored, type StoredFeedback, type StoredQuestion, type StoredValue } from './records.js';
import type { InsightsSettings } from './settings.js';

/** The store's list methods insights need (MemoryRateLimitStore and RedisRateLimitStore have them). */
export type InsightsStore = Required<Pick<RateLimitStore, 'append' | 'list' | 'remove'>>;

/** Most characters of a question kept (the proxy's own limit on a query is longer; the report needs no more). */
const MAX_QUESTION_CHARS = 1000;
const decoder = new TextDecoder();
const encoder = new TextEncoder();

/**
 * Records what visitors ask and how it went, in the store, for the report. Never the address: the visitor is a
 * keyed hash. A store that fails while recording never fails the visitor's answer: the record is dropped and counted.
 */
export class Insights {
  readonly settings: InsightsSettings;
  readonly #store: InsightsStore;
  readonly #log: Log;
  #key: Promise<CryptoKey> | undefined;
  /** Hashes already worked out: WebCrypto's HMAC is asynchronous and costs more than the rest of a record together. */
  readonly #hashes = new Map<string, string>();
  #dropped = 0;

  constructor(settings: InsightsSettings, store: InsightsStore, log: Log) {
    this.settings = settings;
    this.#store = store;
    this.#log = log;
  }

  /** Records dropped by this instance because the store failed. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Starts recording a question that passed the checks; `visitor` is what tells the visitor apart (never stored as is). */
  start(agent: string, question: string, visitor: string): QuestionRecording {
    return new QuestionRecording(this, agent, question, visitor);
  }

  /** The visitor as a keyed hash (HMAC-SHA-256, 16 bytes in hex): the same visitor gives the same hash while the key stays. */
  async visitorHash(visitor: string): Promise<string> {
    const known = this.#hashes.get(visitor);
    if (known !== undefined) return known;
    this.#key ??= crypto.subtle.importKey('raw', encoder.encode(`kagent-insights-visitor:${this.settings.visitorKey}`), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const mac = new Uint8Array(await crypto.subtle.sign('HMAC', await this.#key, encoder.encode(visitor)));
    let hex = '';
    for (let i = 0; i < 16; i++) hex += mac[i]!.toString(16).padStart(2, '0');
    // Bounded: past 10,000 visitors it starts over rather than grow.
    if (this.#hashes.size >= 10_000) this.#hashes.clear();
    this.#hashes.set(visitor, hex);
    return hex;
  }

  /** Keeps a visitor's feedback on a question; rejects when the store fails (the page is told to try again). */
  async feedback(request: FeedbackRequest, visitor: string, now = Date.now()): Promise<void> {
    const value: StoredFeedback = { t: 'f', id: request.questionId, visitor: await this.visitorHash(visitor), rating: request.rating, at: new Date(now).toISOString() };
    if (request.comment?.trim()) value.comment = request.comment.trim();
    await this.#store.append(dayKey(dayOf(now)), JSON.stringify(value), keepMs(now, this.settings.days));
  }

  /** Writes a question's record, off the visitor's path: a failure drops it and counts it. */
  keep(record: Omit<StoredQuestion, 'visitor'>, visitor: string, now = Date.now()): void {
    const known = this.#hashes.get(visitor);
    // The hash set on the record itself: a spread into a new object takes V8's slow path.
    const write = (hash: string) => this.#store.append(dayKey(dayOf(now)), JSON.stringify(Object.assign(record, { visitor: hash })), keepMs(now, this.settings.days));
    (known !== undefined ? write(known) : this.visitorHash(visitor).then(write))
      .catch((error: unknown) => {
        this.#dropped++;
        // Said once, then every hundredth: a store that is down would otherwise fill the log.
        if (this.#dropped === 1 || this.#dropped % 100 === 0) this.#log('error', 'insights: a question could not be recorded (the store failed); the visitor was answered, the record dropped', { dropped: this.#dropped, error });
      });
  }

  /** Every value kept for the last `days` days, oldest day first. */
  async values(now = Date.now()): Promise<StoredValue[]> {
    const lists = await Promise.all(lastDays(now, this.settings.days + 1).map((day) => this.#store.list(dayKey(day))));
    const values: StoredValue[] = [];
    for (const list of lists) for (const text of list) {
      const value = readStored(text);
      if (value) values.push(value);
    }
    return values;
  }

  /** Forgets everything kept, or one visitor's questions and feedback (by their hash); gives how many values went. */
  async forget(visitor?: string, now = Date.now()): Promise<number> {
    let deleted = 0;
    for (const day of lastDays(now, this.settings.days + 1)) {
      const key = dayKey(day);
      const list = await this.#store.list(key);
      const going = visitor === undefined ? list : list.filter((text) => readStored(text)?.visitor === visitor);
      if (going.length) deleted += await this.#store.remove(key, going);
    }
    return deleted;
  }
}

/** One question on its way: told the answer's pieces as they go by, and how it ended; then written once. */
export class QuestionRecording implements AnswerWatch {
  /** The question's id, sent to the page in `Kagent-Question-Id` for its feedback. */
  readonly id = questionId();
  readonly #insights: Insights;
  readonly #agent: string;
  readonly #question: string;
  readonly #visitor: string;
  readonly #started = Date.now();
  #firstByteMs: number | undefined;
  #tap: AnswerTap | undefined;
  #written = false;

  constructor(insights: Insights, agent: string, question: string, visitor: string) {
    this.#insights = insights;
    this.#agent = agent;
    this.#question = question.slice(0, MAX_QUESTION_CHARS);
    this.#visitor = visitor;
  }

  /** A piece of the streamed answer, as it goes to the visitor. */
  piece(bytes: Uint8Array): void {
    this.#firstByteMs ??= Date.now() - this.#started;
    (this.#tap ??= new AnswerTap()).push(bytes);
  }

  /** The streamed answer ended. */
  end(outcome: RelayOutcome): void {
    const reading = this.#tap?.reading() ?? { opening: '', sources: [], error: undefined };
    let result: QuestionOutcome;
    if (outcome.kind === 'complete') {
      if (reading.error === undefined) result = { kind: 'answered', sources: reading.sources.length };
      // A usage limit can arrive inside a 200 stream: the service refused, nothing failed.
      else if (reading.error.startsWith('USAGE_LIMIT')) result = { kind: 'refused', status: 402, reason: reading.error };
      else result = { kind: 'failed', reason: reading.error };
    } else result = { kind: 'failed', reason: outcome.kind === 'failed' ? 'the service failed during the answer' : outcome.kind };
    this.#write(result, reading.sources, reading.opening);
  }

  /**
   * The visitor's answer as the proxy gives it: names the question in its headers, and records a whole answer (JSON or
   * a refusal) at once; a streamed one is recorded by `piece` and `end` as it goes.
   */
  answered(answer: ProxyAnswer): ProxyAnswer {
    answer.headers[QUESTION_ID_HEADER] = this.id;
    if (answer.body instanceof ReadableStream) return answer;
    const text = answer.body ? decoder.decode(answer.body) : '';
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (answer.status < 300) {
      const sources = sourceNames(parsed);
      const opening = typeof (parsed as { answer?: unknown })?.answer === 'string' ? (parsed as { answer: string }).answer.slice(0, OPENING_LENGTH) : '';
      this.#firstByteMs = Date.now() - this.#started;
      this.#write({ kind: 'answered', sources: sources.length }, sources, opening);
    } else this.refused(answer.status, readErrorBody(parsed));
    return answer;
  }

  /** The question was refused (a limit, the service) or failed before an answer started. */
  refused(status: number, error: { code?: string | undefined; message?: string | undefined }): void {
    const reason = [error.code, error.message].filter(Boolean).join(': ').slice(0, 300) || `status ${status}`;
    this.#write(status >= 500 || status === 499 ? { kind: 'failed', reason } : { kind: 'refused', status, reason }, [], '');
  }

  #write(outcome: QuestionOutcome, sources: string[], opening: string): void {
    if (this.#written) return;
    this.#written = true;
    const record: Omit<StoredQuestion, 'visitor'> = { t: 'q', id: this.id, at: new Date(this.#started).toISOString(), agent: this.#agent, question: this.#question, outcome, sources, opening };
    if (this.#firstByteMs !== undefined) record.firstByteMs = this.#firstByteMs;
    if (outcome.kind === 'answered' || this.#firstByteMs !== undefined) record.totalMs = Date.now() - this.#started;
    this.#insights.keep(record, this.#visitor);
  }
}

/** Random bytes drawn 1 KiB at a time: one call to the system's source per 64 ids rather than one each. */
let randomPool = new Uint8Array(0);
let randomAt = 0;
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** 16 random bytes, base64url (22 characters): the question ids of src/protocol/insights.ts. */
function questionId(): string {
  if (randomAt + 16 > randomPool.length) {
    randomPool = crypto.getRandomValues(new Uint8Array(1024));
    randomAt = 0;
  }
  let id = '';
  // 128 bits, 6 at a time: 21 full characters and one of the last 2 bits.
  let bits = 0;
  let value = 0;
  for (let i = randomAt; i < randomAt + 16; i++) {
    value = (value << 8) | randomPool[i]!;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      id += BASE64URL[(value >> bits) & 63];
    }
  }
  id += BASE64URL[(value << (6 - bits)) & 63];
  randomAt += 16;
  return id;
}
