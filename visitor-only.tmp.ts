import { widgetVisitorWaits, SESSION_STEPS } from './bench/support/widget-visitor.js';
const waits = await widgetVisitorWaits(new URL('./dist/', import.meta.url), { runs: Number(process.env.RUNS ?? 3), throttle: 4 });
const median = (l: number[]) => [...l].sort((a, b) => a - b)[Math.floor(l.length / 2)]!;
for (const w of waits) console.log(w.sessions, w.asked, w.ms.map(Math.round).join(', '), 'median', Math.round(median(w.ms)), w.sessions === 'on' ? JSON.stringify(w.steps) : '');
