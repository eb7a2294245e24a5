import { QUESTION_ID_HEADER, readErrorBody, type FeedbackRequest, type QuestionOutcome } from '../../../protocol/index.js';
import type { RateLimitStore } from '../../stores/store.js';
import type { Log } from '../log.js';
import type { AnswerWatch, RelayOutcome } from '../relay.js';
import type { ProxyAnswer } from '../responses.js';
import { AnswerTap } from './answer-tap.js';
import { readJsonAnswer } from './json-answer.js';
import { dayKey, dayOf, keepMs, lastDays, questionText, readStored, type StoredFeedback, type StoredValue } from './records.js';
import type { InsightsSettings } from './settings.js';

/** The store's list methods insights need (MemoryRateLimitStore and RedisRateLimitStore have them). */
export type InsightsStore = Required<Pick<RateLimitStore, 'append' | 'list' | 'remove'>>;

/** Most characters of a question kept (the proxy's own limit on a query is longer; the report needs no more). */
const MAX_QUESTION_CHARS = 1000;
const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** Most records one store call carries (a Redis script's arguments, an Upstash request's body). */
const BATCH_SIZE = 100;
/** How long records wait to be written together where the process lives on (Node, Deno, Bun). */
const BATCH_DELAY_MS = 200;
/** Most records waiting at once: past it (a store far slower than the questions) new ones are dropped and counted. */
const MAX_WAITING = 10_000;

/** Hands work still running to the runtime, which would otherwise stop it once the response is sent (Workers' `ctx.waitUntil`). */
export type WaitUntil = (work: Promise<unknown>) => void;

/**
 * Records what visitors ask and how it went, in the store, for the report. Never the address: the visitor is a
 * keyed hash. Recording stays off the visitor's path: a question's record is worked out and written after its
 * answer ended, many records in one store call. A store that fails while recording never fails the visitor's
 * answer: the record is dropped and counted.
 */
export class Insights {
  readonly settings: InsightsSettings;
  readonly #store: InsightsStore;
  readonly #log: Log;
  #key: Promise<CryptoKey> | undefined;
  /** Hashes already worked out: WebCrypto's HMAC is asynchronous and costs more than the rest of a record together. */
  readonly #hashes = new Map<string, string>();
  /** Hashes being worked out: a new visitor's questions that end meanwhile wait for the same one. */
  readonly #hashing = new Map<string, Promise<string>>();
  /** Questions answered whose records wait to be written. */
  #waiting: QuestionRecording[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Questions answered whose answers are still held (a stream's end, a JSON text), to be read soon after. */
  #unread: QuestionRecording[] = [];
  #readTimer: ReturnType<typeof setTimeout> | undefined;
  /** Writes under way, so the report can wait for them. */
  readonly #writes = new Set<Promise<void>>();
  #dropped = 0;
  #failures = 0;

  constructor(settings: InsightsSettings, store: InsightsStore, log: Log) {
    this.settings = settings;
    this.#store = store;
    this.#log = log;
  }

  /** Records dropped by this instance because the store failed. */
  get dropped(): number {
    return this.#dropped;
  }

  /**
   * Starts recording a question that passed the checks; `visitor` is what tells the visitor apart (never stored as
   * is); `waitUntil`, where the runtime has one, is handed the write of its record.
   */
  start(agent: string, question: string, visitor: string, waitUntil?: WaitUntil): QuestionRecording {
    return new QuestionRecording(this, agent, question, visitor, waitUntil);
  }

  /** The visitor as a keyed hash (HMAC-SHA-256, 16 bytes in hex): the same visitor gives the same hash while the key stays. */
  visitorHash(visitor: string): Promise<string> {
    const known = this.#hashes.get(visitor);
    if (known !== undefined) return Promise.resolve(known);
    let hashing = this.#hashing.get(visitor);
    if (!hashing) {
      hashing = this.#hash(visitor).finally(() => this.#hashing.delete(visitor));
      this.#hashing.set(visitor, hashing);
    }
    return hashing;
  }

  async #hash(visitor: string): Promise<string> {
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
    await this.#store.append(dayKey(dayOf(now)), [JSON.stringify(value)], keepMs(now, this.settings.days));
  }

  /**
   * A question's answer ended: its record waits to be written with others. Where the runtime stops work once the
   * response is sent, it is written at once and the runtime told to wait for it; elsewhere a short while later.
   */
  keep(recording: QuestionRecording, waitUntil: WaitUntil | undefined): void {
    if (this.#waiting.length >= MAX_WAITING) return this.#drop(1, new Error(`${MAX_WAITING} records already wait for the store`));
    this.#waiting.push(recording);
    // Only this request's write is handed over: a Worker must not wait on another request's work.
    if (waitUntil) return waitUntil(this.#writeWaiting());
    // Read in the event loop's next turn, once the visitor's answer is sent, rather than when the batch is written:
    // what the answer left (a stream's end, a JSON text) is then let go young, not carried into the old generation.
    this.#unread.push(recording);
    this.#readTimer ??= setTimeout(() => this.#readAnswers(), 0);
    if (this.#waiting.length === BATCH_SIZE) {
      // Written once this visitor's answer is on its way, not before it.
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => void this.#writeWaiting(), 0);
    } else this.#timer ??= setTimeout(() => void this.#writeWaiting(), BATCH_DELAY_MS);
  }

  /** Reads the answers of the questions answered since the last turn (their records are written later, in batches). */
  #readAnswers(): void {
    this.#readTimer = undefined;
    const unread = this.#unread;
    this.#unread = [];
    for (const recording of unread) {
      try {
        recording.readAnswer();
      } catch {
        // Read again when its record is written, which drops and counts it if it fails again.
      }
    }
  }

  /** Writes every record waiting, and waits for the writes under way; a store failure drops them and counts them. */
  async flush(): Promise<void> {
    void this.#writeWaiting();
    await Promise.all(this.#writes);
  }

  /** Starts writing the records waiting; resolves when they are written or dropped. */
  #writeWaiting(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#waiting;
    this.#waiting = [];
    if (batch.length === 0) return Promise.resolve();
    const write = this.#write(batch);
    this.#writes.add(write);
    void write.finally(() => this.#writes.delete(write));
    return write;
  }

  /** Writes a batch once its visitors are hashed: at once when they all are already (the usual case). */
  #write(batch: QuestionRecording[]): Promise<void> {
    let hashing: Promise<void>[] | undefined;
    for (const recording of batch) {
      recording.visitorHash ??= this.#hashes.get(recording.visitor);
      if (recording.visitorHash === undefined) (hashing ??= []).push(this.visitorHash(recording.visitor).then((hash) => void (recording.visitorHash = hash)));
    }
    if (!hashing) return this.#append(batch);
    return Promise.all(hashing).then(
      () => this.#append(batch),
      (error: unknown) => this.#drop(batch.length, error),
    );
  }

  /** The batch's records, one store call per day they fall on (one, but around midnight). */
  #append(batch: QuestionRecording[]): Promise<void> {
    const runs: { day: string; values: string[] }[] = [];
    try {
      let run: { day: string; values: string[] } | undefined;
      for (const recording of batch) {
        const { day } = recording;
        if (run?.day !== day || run.values.length === BATCH_SIZE) runs.push((run = { day, values: [] }));
        run.values.push(recording.recordText(recording.visitorHash!));
      }
    } catch (error) {
      this.#drop(batch.length, error);
      return Promise.resolve();
    }
    const ttl = keepMs(Date.now(), this.settings.days);
    const writes = runs.map(({ day, values }) => this.#store.append(dayKey(day), values, ttl).catch((error: unknown) => this.#drop(values.length, error)));
    return writes.length === 1 ? writes[0]! : Promise.all(writes).then(() => {});
  }

  #drop(count: number, error: unknown): void {
    this.#dropped += count;
    // Said once, then every hundredth failure: a store that is down would otherwise fill the log.
    if (++this.#failures % 100 === 1) this.#log('error', 'insights: questions could not be recorded (the store failed); the visitors were answered, the records dropped', { dropped: this.#dropped, error });
  }

  /** Every value kept for the last `days` days, oldest day first (the records still waiting written first). */
  async values(now = Date.now()): Promise<StoredValue[]> {
    await this.flush();
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
    await this.flush();
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

/**
 * How a question's answer ended: a streamed answer's relay outcome; the whole answer the visitor got (its text as the
 * proxy read it, or its bytes when the proxy wrote it); or a refusal.
 */
type Ending = { outcome: RelayOutcome } | { whole: Uint8Array | null; text: string | undefined; status: number } | { refused: number; error: { code?: string | undefined; message?: string | undefined } };

/**
 * One question on its way: told the answer's pieces as they go by, and how it ended, with as little as it can on
 * the visitor's path (a JSON answer is read only when the record is written).
 */
export class QuestionRecording implements AnswerWatch {
  /** The question's id, sent to the page in `Kagent-Question-Id` for its feedback. */
  readonly id = questionId();
  /** What tells the visitor apart, hashed when the record is written. */
  readonly visitor: string;
  /** The visitor's keyed hash, once worked out. */
  visitorHash: string | undefined;
  readonly #insights: Insights;
  readonly #agent: string;
  readonly #question: string;
  readonly #waitUntil: WaitUntil | undefined;
  readonly #started = Date.now();
  #firstByteMs: number | undefined;
  #totalMs: number | undefined;
  #tap: AnswerTap | undefined;
  /** A JSON answer's text, as the proxy read it. */
  #text: string | undefined;
  #ending: Ending | undefined;
  #ended = false;
  /** What the answer gave the record, once read (its tap and text then let go). */
  #read: AnswerResult | undefined;

  constructor(insights: Insights, agent: string, question: string, visitor: string, waitUntil: WaitUntil | undefined) {
    this.#insights = insights;
    this.#agent = agent;
    this.#question = question;
    this.visitor = visitor;
    this.#waitUntil = waitUntil;
  }

  /** A piece of the streamed answer, as it goes to the visitor; `keepFrom` as the relay's `StreamLines` read it. */
  piece(bytes: Uint8Array, keepFrom: number): void {
    this.#firstByteMs ??= Date.now() - this.#started;
    (this.#tap ??= new AnswerTap()).push(bytes, keepFrom);
  }

  /** A JSON answer's text, as the proxy read it (told before `answered`). */
  text(text: string): void {
    this.#text = text;
  }

  /** The streamed answer ended. */
  end(outcome: RelayOutcome): void {
    if (this.#firstByteMs !== undefined) this.#totalMs = Date.now() - this.#started;
    this.#end({ outcome });
  }

  /**
   * The visitor's answer as the proxy gives it: names the question in its headers; a whole answer (JSON or a
   * refusal) ends the recording, a streamed one ends with `end`.
   */
  answered(answer: ProxyAnswer): ProxyAnswer {
    answer.headers[QUESTION_ID_HEADER] = this.id;
    if (answer.body instanceof ReadableStream) return answer;
    if (answer.status < 300) this.#firstByteMs = this.#totalMs = Date.now() - this.#started;
    this.#end({ whole: answer.body, text: this.#text, status: answer.status });
    return answer;
  }

  /** The question was refused (a limit, the service) or failed before an answer started. */
  refused(status: number, error: { code?: string | undefined; message?: string | undefined }): void {
    this.#end({ refused: status, error });
  }

  #end(ending: Ending): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#ending = ending;
    this.#insights.keep(this, this.#waitUntil);
  }

  /** The UTC day the question was asked on, as `YYYY-MM-DD`. */
  get day(): string {
    return isoTime(this.#started).slice(0, 10);
  }

  /** The record's stored text, worked out once the answer ended (off the visitor's path). */
  recordText(visitorHash: string): string {
    this.readAnswer();
    const { outcome, sources, openingJson } = this.#read!;
    return questionText({ id: this.id, at: isoTime(this.#started), agent: this.#agent, question: this.#question.slice(0, MAX_QUESTION_CHARS), outcome, sources, openingJson, visitor: visitorHash, firstByteMs: this.#firstByteMs, totalMs: this.#totalMs });
  }

  /** Reads what the answer gives the record now, and lets go of the answer (the stream's end, the JSON text). */
  readAnswer(): void {
    if (this.#read || !this.#ending) return;
    this.#read = this.#result();
    this.#tap = undefined;
    this.#text = undefined;
    this.#ending = undefined;
  }

  #result(): AnswerResult {
    const ending = this.#ending!;
    if ('refused' in ending) return { outcome: refusal(ending.refused, ending.error), sources: [], openingJson: '""' };
    if ('whole' in ending) {
      const { whole: body, text, status } = ending;
      // The text the proxy decoded (or the bytes it wrote itself, a rare answer of its own).
      const answer = text ?? (body ? decoder.decode(body) : '');
      if (status >= 300) return { outcome: refusal(status, readErrorBody(parseOrUndefined(answer))), sources: [], openingJson: '""' };
      const { openingJson, sources } = readJsonAnswer(answer);
      return { outcome: { kind: 'answered', sources: sources.length }, sources, openingJson };
    }
    const reading = this.#tap?.reading() ?? { opening: '', sources: [], error: undefined };
    const { outcome } = ending;
    let result: QuestionOutcome;
    if (outcome.kind === 'complete') {
      if (reading.error === undefined) result = { kind: 'answered', sources: reading.sources.length };
      // A usage limit can arrive inside a 200 stream: the service refused, nothing failed.
      else if (reading.error.startsWith('USAGE_LIMIT')) result = { kind: 'refused', status: 402, reason: reading.error };
      else result = { kind: 'failed', reason: reading.error };
    } else result = { kind: 'failed', reason: outcome.kind === 'failed' ? 'the service failed during the answer' : outcome.kind };
    return { outcome: result, sources: reading.sources, openingJson: JSON.stringify(reading.opening) };
  }
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** What an answer gives its record. */
interface AnswerResult {
  outcome: QuestionOutcome;
  sources: string[];
  openingJson: string;
}

/** The last time written as ISO 8601: questions of one millisecond share it. */
let lastTime = { ms: NaN, iso: '' };

function isoTime(ms: number): string {
  if (ms !== lastTime.ms) lastTime = { ms, iso: new Date(ms).toISOString() };
  return lastTime.iso;
}

/** A question refused (a limit, the service) or failed before its answer started, as its outcome. */
function refusal(status: number, error: { code?: string | undefined; message?: string | undefined }): QuestionOutcome {
  const reason = [error.code, error.message].filter(Boolean).join(': ').slice(0, 300) || `status ${status}`;
  return status >= 500 || status === 499 ? { kind: 'failed', reason } : { kind: 'refused', status, reason };
}

/** Random bytes drawn 4 KiB at a time: one call to the system's source per 186 ids rather than one each. */
let randomPool = new Uint8Array(0);
let randomAt = 0;
const ID_LENGTH = 22;
/** The base64url alphabet's character codes. */
const BASE64URL = Array.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', (c) => c.charCodeAt(0));
const idCodes = new Array<number>(ID_LENGTH);

/**
 * A question id of src/protocol/insights.ts: 22 base64url characters, each from a random byte's low 6 bits (132
 * random bits), made as one string at once.
 */
function questionId(): string {
  if (randomAt + ID_LENGTH > randomPool.length) {
    randomPool = crypto.getRandomValues(new Uint8Array(4096));
    randomAt = 0;
  }
  for (let i = 0; i < ID_LENGTH; i++) idCodes[i] = BASE64URL[randomPool[randomAt + i]! & 63]!;
  randomAt += ID_LENGTH;
  return String.fromCharCode(...idCodes);
}
