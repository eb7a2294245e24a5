import type { InsightsReport, QuestionRecord } from '../../../protocol/index.js';
import { dayOf, lastDays, type StoredFeedback, type StoredQuestion, type StoredValue } from './records.js';

/** How many entries each list of the report shows. */
const LIST_LENGTH = 20;
const MOST_ASKED = 10;

/** The report (src/protocol/insights.ts) from the values kept, over the last `days` UTC days up to `now`'s. */
export function buildReport(values: readonly StoredValue[], { days, now, dropped }: { days: number; now: number; dropped: number }): InsightsReport {
  const period = lastDays(now, days);
  const first = period[0]!;
  const questions = new Map<string, StoredQuestion>();
  const feedback = new Map<string, StoredFeedback>();
  for (const value of values) {
    if (value.t === 'q') {
      if (value.at.slice(0, 10) >= first) questions.set(value.id, value);
    } else {
      // One feedback per question and visitor: the last one said counts.
      const key = `${value.id} ${value.visitor}`;
      const before = feedback.get(key);
      if (!before || before.at <= value.at) feedback.set(key, value);
    }
  }

  const records: QuestionRecord[] = [];
  for (const question of questions.values()) {
    const { t: _t, ...record } = question;
    const said = feedback.get(`${question.id} ${question.visitor}`);
    records.push(said ? { ...record, feedback: { rating: said.rating, ...(said.comment ? { comment: said.comment } : {}), at: said.at } } : record);
  }
  records.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));

  const perDay = new Map(period.map((day) => [day, { day, questions: 0, visitors: new Set<string>() }]));
  const visitors = new Set<string>();
  const totals = { questions: records.length, visitors: 0, answeredWithSources: 0, answeredWithoutSources: 0, refused: 0, failed: 0, thumbsUp: 0, thumbsDown: 0, dropped };
  for (const record of records) {
    const day = perDay.get(dayOf(Date.parse(record.at)));
    if (day) {
      day.questions++;
      day.visitors.add(record.visitor);
    }
    visitors.add(record.visitor);
    if (record.outcome.kind === 'answered') record.outcome.sources > 0 ? totals.answeredWithSources++ : totals.answeredWithoutSources++;
    else totals[record.outcome.kind]++;
    if (record.feedback) record.feedback.rating === 'up' ? totals.thumbsUp++ : totals.thumbsDown++;
  }
  totals.visitors = visitors.size;

  return {
    generatedAt: new Date(now).toISOString(),
    days,
    totals,
    shareAnsweredWithSources: records.length ? totals.answeredWithSources / records.length : 0,
    perDay: [...perDay.values()].map(({ day, questions, visitors }) => ({ day, questions, visitors: visitors.size })),
    mostAsked: mostAsked(records),
    noSource: records.filter((r) => r.outcome.kind === 'answered' && r.outcome.sources === 0).slice(0, LIST_LENGTH),
    thumbsDown: records.filter((r) => r.feedback?.rating === 'down').slice(0, LIST_LENGTH),
    slowest: records.filter((r) => r.totalMs !== undefined).sort((a, b) => b.totalMs! - a.totalMs!).slice(0, LIST_LENGTH),
  };
}

/** Words that change no question's meaning for grouping ("How do I reset my password?" = "reset password"). */
const FILLER = new Set('a an the is are was were be do does did i me my we our you your it its to of in on for at by and or can could would should will please how what when where which who why there this that with'.split(' '));

/**
 * A question's wording reduced to what groups near-duplicates: case, accents, punctuation, filler words, plural `s`
 * and word order set aside. Questions with no word left keep their lower-cased text.
 */
export function questionKey(question: string): string {
  const words = question
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word && !FILLER.has(word))
    .map((word) => (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word));
  return words.length ? [...new Set(words)].sort().join(' ') : question.trim().toLowerCase();
}

function mostAsked(records: readonly QuestionRecord[]): InsightsReport['mostAsked'] {
  const groups = new Map<string, Map<string, number>>();
  for (const { question } of records) {
    const key = questionKey(question);
    let wordings = groups.get(key);
    if (!wordings) groups.set(key, (wordings = new Map()));
    const wording = question.trim();
    wordings.set(wording, (wordings.get(wording) ?? 0) + 1);
  }
  const ranked = [...groups.values()].map((wordings) => {
    let count = 0;
    let example = '';
    let best = 0;
    for (const [wording, n] of wordings) {
      count += n;
      if (n > best) [example, best] = [wording, n];
    }
    return { question: example, count, variants: wordings.size };
  });
  return ranked.sort((a, b) => b.count - a.count || a.question.localeCompare(b.question)).slice(0, MOST_ASKED);
}
