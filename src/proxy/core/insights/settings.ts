/** Insights as the proxy runs them (`KAGENT_INSIGHTS=on`): how long records are kept and who may read them. */
export interface InsightsSettings {
  /** Days a record is kept after the day it was made (`KAGENT_INSIGHTS_DAYS`). */
  days: number;
  /** The operator's token for `GET`/`DELETE /insights` (`KAGENT_ADMIN_TOKEN`); without it the report route does not exist. */
  adminToken: string | undefined;
  /** The secret the visitor hash is keyed with: the admin token when set, else the API key (both stay on the proxy). */
  visitorKey: string;
}

export const DEFAULT_INSIGHTS_DAYS = 30;
/** Shortest admin token accepted: a guessable one would open every visitor's questions. */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

/** The settings from the options, or `undefined` with insights off; problems go to `problems`. */
export function insightsSettings(o: { insights?: boolean; insightsDays?: number; adminToken?: string; apiKey?: string }, problems: string[]): InsightsSettings | undefined {
  if (o.insights !== true) {
    if (o.insights !== undefined && o.insights !== false) problems.push('insights (KAGENT_INSIGHTS) must be on or off');
    return undefined;
  }
  let days = DEFAULT_INSIGHTS_DAYS;
  if (o.insightsDays !== undefined) {
    if (!Number.isInteger(o.insightsDays) || o.insightsDays < 1 || o.insightsDays > 3660) problems.push('insightsDays (KAGENT_INSIGHTS_DAYS) must be a whole number of days from 1 to 3660');
    else days = o.insightsDays;
  }
  const token = o.adminToken;
  if (token !== undefined) {
    // The token itself is never echoed.
    if (typeof token !== 'string' || token.length < MIN_ADMIN_TOKEN_LENGTH || !/^[\x21-\x7e]+$/.test(token)) problems.push(`adminToken (KAGENT_ADMIN_TOKEN) must be at least ${MIN_ADMIN_TOKEN_LENGTH} random printable characters without spaces (e.g. openssl rand -hex 32)`);
    else if (new Set(token).size < 10) problems.push('adminToken (KAGENT_ADMIN_TOKEN) must be random (e.g. openssl rand -hex 32): this one repeats a few characters');
    else if (token === o.apiKey) problems.push('adminToken (KAGENT_ADMIN_TOKEN) must not be the API key');
  }
  return { days, adminToken: token, visitorKey: token ?? o.apiKey ?? '' };
}
