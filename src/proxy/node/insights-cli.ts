// `kagent-proxy insights --url URL --token TOKEN`: the insights report of a running proxy, printed in the terminal.
import { INSIGHTS_ROUTE, type InsightsReport, type QuestionRecord } from '../../protocol/index.js';

/** Reads the report from the proxy at `url` and prints it; resolves with the exit code. */
export async function insightsCommand(args: string[], env: NodeJS.ProcessEnv, print: (line: string) => void = console.log): Promise<number> {
  const url = option(args, '--url') ?? env.KAGENT_PROXY_URL;
  const token = option(args, '--token') ?? env.KAGENT_ADMIN_TOKEN;
  if (!url || !token) {
    print('usage: kagent-proxy insights --url https://proxy.example.com/api/kagent --token <KAGENT_ADMIN_TOKEN>');
    return 2;
  }
  const address = `${url.replace(/\/+$/, '')}${INSIGHTS_ROUTE}`;
  let response: Response;
  try {
    response = await fetch(address, { headers: { authorization: `Bearer ${token}` } });
  } catch (error) {
    print(`cannot reach ${address}: ${(error as Error).message}`);
    return 1;
  }
  if (response.status !== 200) {
    print(response.status === 404 ? `${address} answered 404: is the proxy running with KAGENT_INSIGHTS=on and KAGENT_ADMIN_TOKEN set?` : `${address} answered ${response.status}: ${clean(await response.text()).slice(0, 300)}`);
    return 1;
  }
  for (const line of formatReport((await response.json()) as InsightsReport)) print(line);
  return 0;
}

/** The report as terminal lines; visitors' text has its control characters taken out, so it cannot steer the terminal. */
export function formatReport(report: InsightsReport): string[] {
  const t = report.totals;
  const top = Math.max(1, ...report.perDay.map((d) => d.questions));
  const lines = [
    `Chat insights: the last ${report.days} days, as of ${report.generatedAt}`,
    `${t.questions} questions from ${t.visitors} visitors; ${Math.round(report.shareAnsweredWithSources * 100)}% answered with sources, ${t.answeredWithoutSources} with none, ${t.refused} refused, ${t.failed} failed; thumbs up ${t.thumbsUp}, down ${t.thumbsDown}${t.dropped ? `; ${t.dropped} not recorded (store failed)` : ''}`,
    '',
    'Questions per day',
    ...report.perDay.filter((d) => d.questions > 0).map((d) => `  ${d.day} ${'#'.repeat(Math.max(1, Math.round((d.questions / top) * 40)))} ${d.questions} (${d.visitors} visitors)`),
    '',
    'Most asked',
    ...report.mostAsked.map((q) => `  ${String(q.count).padStart(4)}  ${clean(q.question)}${q.variants > 1 ? ` (${q.variants} wordings)` : ''}`),
    '',
    'Answered with no source',
    ...report.noSource.map(line),
    '',
    'Thumbs down',
    ...report.thumbsDown.flatMap((r) => [line(r), ...(r.feedback?.comment ? [`      "${clean(r.feedback.comment)}"`] : []), ...(r.sources.length ? [`      sources: ${r.sources.map(clean).join(', ')}`] : [])]),
    '',
    'Slowest',
    ...report.slowest.slice(0, 10).map(line),
  ];
  return lines;
}

function line(r: QuestionRecord): string {
  const outcome = r.outcome.kind === 'answered' ? (r.outcome.sources === 1 ? '1 source' : `${r.outcome.sources} sources`) : `${r.outcome.kind}: ${clean(r.outcome.reason)}`;
  return `  ${r.at.slice(0, 16).replace('T', ' ')}  ${clean(r.question)}  [${clean(r.agent)}, ${outcome}${r.totalMs === undefined ? '' : `, ${(r.totalMs / 1000).toFixed(1)} s`}]`;
}

function clean(text: string): string {
  return text.replace(/[\x00-\x1f\x7f-\x9f]+/g, ' ');
}

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  if (at !== -1) return args[at + 1];
  return args.find((arg) => arg.startsWith(`${name}=`))?.slice(name.length + 1);
}
