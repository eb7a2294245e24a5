// Helpers for the insights tests: the admin token, the report read with it, and a wait for a record to land
// (records are written after the answer ends, off the visitor's path).
import type { InsightsReport } from '../../src/protocol/index.js';

export const ADMIN_TOKEN = 'adm_7f3c9e1b5a2d8f4c6e0b9a7d3f1c5e8b';

/** `GET {url}/insights` with the token (or another); the JSON report when it answers 200. */
export async function readReport(url: string, token = ADMIN_TOKEN): Promise<InsightsReport> {
  return (await readAnswer(await fetch(`${url}/insights`, { headers: { authorization: `Bearer ${token}` } }))) as InsightsReport;
}

async function readAnswer(response: Response): Promise<unknown> {
  if (response.status !== 200) throw new Error(`GET /insights answered ${response.status}: ${await response.text()}`);
  return response.json();
}

/**
 * The report once `ready` holds of it: records land when an answer has ended, so a test asks until they have (at most
 * 10 s). A 503 (the store did not answer within its time limit, which a loaded machine can exceed) is asked again, as
 * its Retry-After says; the deadline still fails a store that never answers.
 */
export async function reportWhen(url: string, ready: (report: InsightsReport) => boolean, token = ADMIN_TOKEN): Promise<InsightsReport> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const response = await fetch(`${url}/insights`, { headers: { authorization: `Bearer ${token}` } });
    const unavailable = response.status === 503 && Date.now() < deadline;
    if (unavailable) await response.body?.cancel();
    const report = unavailable ? undefined : ((await readAnswer(response)) as InsightsReport);
    if (report && ready(report)) return report;
    if (Date.now() > deadline) throw new Error(`the report never got there: ${JSON.stringify(report).slice(0, 800)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
