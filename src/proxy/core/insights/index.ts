// Insights on the proxy's side, the door of this folder: what visitors ask and how it went, kept in the store
// (recorder.ts, records.ts, a streamed answer's opening read as it goes by and its end once it is over in answer-tap.ts), feedback and the operator's report
// (routes.ts, report.ts, report-page.ts), on the settings of settings.ts.
export { Insights, QuestionRecording, type InsightsStore } from './recorder.js';
export { insightsSettings, DEFAULT_INSIGHTS_DAYS, MIN_ADMIN_TOKEN_LENGTH, type InsightsSettings } from './settings.js';
export { feedbackAnswer, insightsAnswer } from './routes.js';
export { buildReport, questionKey } from './report.js';
export { escapeHtml } from './report-page.js';
