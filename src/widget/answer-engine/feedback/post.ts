// Part of the answer engine (the chat's second part): a visitor's feedback sent to the proxy that collects it, and to
// nothing else: only where its features route says `feedback: true`, only for an answer it named (a question id), and
// with the visitor session a query carries, so the proxy never has a reason to refuse it.
import { FEEDBACK_ROUTE, SESSION_HEADER, isQuestionId, readErrorBody, type FeedbackRequest } from '../../../protocol/index.js';
import { proxyFeatures } from '../proxy-features.js';
import { sessionFor } from '../sessions/index.js';

/**
 * `POST {endpoint}/feedback` with `feedback`, where the proxy at `endpoint` collects it; nothing otherwise (`pageSaysOff`:
 * the element's `proxy-features="off"`, a backend that is not kagent-proxy). Never rejects: a refusal or an unreachable
 * proxy is told to the site's developer on the console, and the visitor's choice stays on screen.
 */
export async function postFeedback(endpoint: string, feedback: FeedbackRequest, pageSaysOff: boolean): Promise<void> {
  if (!isQuestionId(feedback.questionId) || !(await proxyFeatures(endpoint, pageSaysOff)).feedback) return;
  const session = await sessionFor(endpoint, false, pageSaysOff);
  // (Its keeper's file missing: the question before said so on the console.)
  if (session && 'failure' in session) return;
  const ticket = (await session?.ticket(new AbortController().signal)) ?? { token: undefined };
  if ('failure' in ticket) return;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (ticket.token) headers[SESSION_HEADER] = ticket.token;
  try {
    const answer = await fetch(endpoint.replace(/\/+$/, '') + FEEDBACK_ROUTE, { method: 'POST', headers, body: JSON.stringify(feedback) });
    if (!answer.ok) console.warn(`kagent-chat: the proxy did not keep a feedback (${answer.status}): ${readErrorBody(await answer.json().catch(() => undefined)).message}`);
  } catch (error) {
    console.warn('kagent-chat: a feedback could not be sent', error);
  }
}
