import type { InsightsReport, QuestionRecord } from '../../../protocol/index.js';

// The report as one page an operator saves and opens: no script, no request to anywhere (the CSP forbids both),
// every visitor's text escaped so a question with markup shows as text.

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const STYLE = `
body{font:16px/1.45 system-ui,sans-serif;margin:0 auto;padding:1rem;max-width:56rem;color:#1d2430;background:#fff}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem}
.totals{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:.5rem}
.totals div{border:1px solid #d5dae2;border-radius:.4rem;padding:.5rem}.totals b{display:block;font-size:1.4rem}
svg{width:100%;height:auto}ol,ul{padding-left:1.3rem}li{margin:.4rem 0;overflow-wrap:anywhere}
.meta{color:#5b6472;font-size:.9rem}blockquote{margin:.3rem 0;padding-left:.6rem;border-left:3px solid #d5dae2}
`;

/** The page and the Content-Security-Policy it is served with (its one style block allowed by a nonce). */
export function reportPage(report: InsightsReport): { html: string; csp: string } {
  const nonce = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
  const t = report.totals;
  const percent = Math.round(report.shareAnsweredWithSources * 100);
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>Chat insights</title><style nonce="${nonce}">${STYLE}</style></head>
<body><h1>Chat insights</h1>
<p class="meta">The last ${report.days} days, as of ${escapeHtml(report.generatedAt)}.</p>
<section class="totals" aria-label="Totals">
<div><b>${t.questions}</b>questions</div><div><b>${t.visitors}</b>visitors</div>
<div><b>${percent}%</b>answered with sources</div><div><b>${t.answeredWithoutSources}</b>answered with no source</div>
<div><b>${t.refused + t.failed}</b>refused or failed</div><div><b>${t.thumbsUp} / ${t.thumbsDown}</b>thumbs up / down</div>
</section>
${t.dropped ? `<p class="meta">${t.dropped} questions could not be recorded (the store failed).</p>` : ''}
<h2>Questions per day</h2>
${chart(report.perDay)}
<h2>Most asked</h2>
${report.mostAsked.length ? `<ol>${report.mostAsked.map((q) => `<li>${escapeHtml(q.question)} <span class="meta">${q.count === 1 ? 'once' : `${q.count} times`}${q.variants > 1 ? `, ${q.variants} wordings` : ''}</span></li>`).join('')}</ol>` : '<p class="meta">No questions yet.</p>'}
<h2>Answered with no source</h2>
${list(report.noSource, false)}
<h2>Thumbs down</h2>
${list(report.thumbsDown, true)}
<h2>Slowest answers</h2>
${list(report.slowest, false)}
</body></html>
`;
  const csp = `default-src 'none'; style-src 'nonce-${nonce}'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
  return { html, csp };
}

/** Questions per day as bars, with the days' counts as the chart's text for screen readers. */
function chart(days: InsightsReport['perDay']): string {
  const width = 600;
  const height = 160;
  const top = Math.max(1, ...days.map((d) => d.questions));
  const step = width / Math.max(1, days.length);
  const bars = days
    .map((d, i) => {
      const h = Math.round((d.questions / top) * (height - 20));
      return `<rect x="${(i * step + 1).toFixed(1)}" y="${height - h}" width="${Math.max(1, step - 2).toFixed(1)}" height="${h}" fill="#3566d6"><title>${d.day}: ${d.questions} questions, ${d.visitors} visitors</title></rect>`;
    })
    .join('');
  const first = days[0]?.day ?? '';
  const last = days[days.length - 1]?.day ?? '';
  return `<svg role="img" aria-label="Questions per day from ${first} to ${last}, at most ${top} a day" viewBox="0 0 ${width} ${height + 16}" xmlns="http://www.w3.org/2000/svg">${bars}<line x1="0" y1="${height}" x2="${width}" y2="${height}" stroke="#8a93a3"/><text x="0" y="${height + 14}" font-size="12" fill="#5b6472">${first}</text><text x="${width}" y="${height + 14}" font-size="12" fill="#5b6472" text-anchor="end">${last}</text></svg>`;
}

function list(records: readonly QuestionRecord[], withFeedback: boolean): string {
  if (records.length === 0) return '<p class="meta">None.</p>';
  return `<ul>${records.map((r) => item(r, withFeedback)).join('')}</ul>`;
}

function item(r: QuestionRecord, withFeedback: boolean): string {
  const outcome = r.outcome.kind === 'answered' ? (r.outcome.sources === 1 ? '1 source' : `${r.outcome.sources} sources`) : `${r.outcome.kind}: ${r.outcome.reason}`;
  const timing = r.totalMs === undefined ? '' : `, ${(r.totalMs / 1000).toFixed(1)} s`;
  const parts = [`${escapeHtml(r.question)} <span class="meta">${escapeHtml(r.at.slice(0, 16).replace('T', ' '))}, ${escapeHtml(r.agent)}, ${escapeHtml(outcome)}${timing}</span>`];
  if (withFeedback && r.feedback?.comment) parts.push(`<blockquote>${escapeHtml(r.feedback.comment)}</blockquote>`);
  if (withFeedback && r.opening) parts.push(`<div class="meta">Answer: ${escapeHtml(r.opening)}…</div>`);
  if (withFeedback && r.sources.length) parts.push(`<div class="meta">Sources: ${r.sources.map(escapeHtml).join(', ')}</div>`);
  return `<li>${parts.join('')}</li>`;
}
