import { INSIGHTS_ROUTE, checkFeedbackRequest, describeProblems, type InsightsDeletion } from '../../../protocol/index.js';
import type { Log } from '../log.js';
import { errorAnswer, jsonAnswer, type ProxyAnswer } from '../responses.js';
import type { Insights } from './recorder.js';
import { buildReport } from './report.js';
import { reportPage } from './report-page.js';

const encoder = new TextEncoder();

/**
 * `GET /insights` (JSON, or `?format=html`) and `DELETE /insights` (everything, or `?visitor=<hash>`), for the
 * operator with the admin token. Never with CORS: no page may read it, whatever origins the proxy allows.
 */
export async function insightsAnswer(method: string, authorization: string | null, search: string, insights: Insights, log: Log, now = Date.now()): Promise<ProxyAnswer> {
  const upper = method.toUpperCase();
  const headers = { Vary: 'Authorization' };
  if (upper !== 'GET' && upper !== 'DELETE') return errorAnswer(405, 'Only GET and DELETE are allowed here.', { ...headers, Allow: 'GET, DELETE' });
  const token = insights.settings.adminToken!;
  const given = /^Bearer +(.+)$/i.exec(authorization ?? '')?.[1]?.trim() ?? '';
  if (!sameSecret(given, token)) {
    log('info', 'refused: the insights report needs the admin token', { route: 'insights', status: 401 });
    return errorAnswer(401, `Send the admin token (KAGENT_ADMIN_TOKEN) as Authorization: Bearer <token> to read ${INSIGHTS_ROUTE}.`, { ...headers, 'WWW-Authenticate': 'Bearer' });
  }
  const query = new URLSearchParams(search);
  try {
    if (upper === 'DELETE') {
      const visitor = query.get('visitor') ?? undefined;
      if (visitor !== undefined && !/^[0-9a-f]{32}$/.test(visitor)) return errorAnswer(400, 'visitor must be a visitor hash as the report gives it (32 hexadecimal characters).', headers);
      const deletion: InsightsDeletion = { deleted: await insights.forget(visitor, now) };
      log('info', visitor ? 'insights: one visitor forgotten' : 'insights: everything forgotten', { route: 'insights', deleted: deletion.deleted });
      return jsonAnswer(200, deletion, headers);
    }
    const report = buildReport(await insights.values(now), { days: insights.settings.days, now, dropped: insights.dropped });
    if (query.get('format') !== 'html') return jsonAnswer(200, report, headers);
    const page = reportPage(report);
    const body = encoder.encode(page.html);
    return {
      status: 200,
      headers: { ...headers, 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': String(body.byteLength), 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': page.csp, 'Referrer-Policy': 'no-referrer', 'X-Frame-Options': 'DENY' },
      body,
    };
  } catch (error) {
    log('error', 'insights: the store cannot be read', { route: 'insights', status: 503, error });
    return errorAnswer(503, 'The insights store cannot be read right now. Please try again shortly.', { ...headers, 'Retry-After': '5' });
  }
}

/** `POST /feedback`'s body read and kept (the request already passed the origin, limit and session checks). */
export async function feedbackAnswer(body: unknown, visitor: string, insights: Insights, cors: Record<string, string>, log: Log): Promise<ProxyAnswer> {
  const checked = checkFeedbackRequest(body);
  if (!checked.ok) {
    const message = describeProblems(checked.problems);
    log('info', `refused: ${message}`, { route: 'feedback', status: 400 });
    return errorAnswer(400, message, cors);
  }
  try {
    await insights.feedback(checked.value, visitor);
  } catch (error) {
    log('error', 'insights: a feedback could not be kept (the store failed)', { route: 'feedback', status: 503, error });
    return errorAnswer(503, 'The feedback could not be saved right now. Please try again shortly.', { ...cors, 'Retry-After': '5' });
  }
  return { status: 204, headers: { ...cors, 'Cache-Control': 'no-store' }, body: null };
}

/** Compares a secret without telling, by the time it takes, how much of it matched. */
export function sameSecret(given: string, secret: string): boolean {
  const a = encoder.encode(given);
  const b = encoder.encode(secret);
  let difference = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) difference |= (a[i % Math.max(1, a.length)] ?? 0) ^ b[i]!;
  return difference === 0 && a.length > 0;
}
