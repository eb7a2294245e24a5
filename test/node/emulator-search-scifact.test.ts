// The emulator's search on a public benchmark, BEIR SciFact, over real HTTP: the abstracts
// uploaded as plain text to an emulator in its own process, claims asked through
// POST /datastores/{id}/query. Floors under the figures `npm run bench -- search` prints
// (nDCG@10 0.685 on all 300 claims, where a reference BM25 gets 0.679), how far the scores shown
// set right sources above wrong ones, and the memory bound of issue 25. For CI time, the first 100
// claims are asked for the figures (the whole set, ten passes of them, for memory); skipped,
// saying so, where the data is not on the machine.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startEmulatorProcess, type EmulatorProcess } from '../support/emulator-process.js';
import { describeSeparation, separation } from '../support/separation.js';
import { SCIFACT_MISSING, askSciFact, citedScores, loadSciFact, sciFactFigures, sciFactFolder, uploadSciFact, type SciFact } from '../support/scifact.js';

const folder = sciFactFolder();
const MB = 2 ** 20;
/** nDCG@10 on the first 100 claims: 0.726 in this round's runs (the reference BM25 gets 0.727 on them; on all 300, 0.685 against 0.679). */
const NDCG_FLOOR = 0.69;
/**
 * The scores of the sources an agent would cite for those claims (issue 25): a right one above a
 * wrong one with a chance of 0.798, medians 0.93 and 0.81, 3 of 86 shown as 100%, in this round's
 * runs; the score before (the share of the question against the best passage) got 0.738, 0.80 and 0.76.
 */
const SEPARATION_FLOOR = { auc: 0.77, medianGap: 0.08, hundred: 0.1 };
/** Issue 25: SciFact ingested, at most 200 MB resident, and no more after passes of its claims (112 MB, then 122 to 128 over 10 passes, in this round's runs). */
const RESIDENT_CAP = 200 * MB;
/** Passes of the 300 claims: 2 to 3 s each. */
const PASSES = 10;
/** Stable: the last three passes hold on average at most this much more than the second to fourth (main held 21 MB more before this round; 1 MB now). */
const GROWTH_CAP = 15 * MB;

describe('BEIR SciFact through the emulator', { skip: folder ? false : SCIFACT_MISSING }, () => {
  let set: SciFact;
  let emulator: EmulatorProcess;
  let ingested = 0;
  before(async () => {
    set = loadSciFact(folder!);
    emulator = await startEmulatorProcess();
    await uploadSciFact(emulator, set.corpus);
    ingested = emulator.rss();
  });
  after(() => emulator?.close());

  const cited = new Map<string, { id: string; score: number }[]>();
  test(`nDCG@10 of the first 100 claims is at least ${NDCG_FLOOR}`, async (t) => {
    const claims = set.queries.slice(0, 100);
    const rankings = new Map<string, string[]>();
    for (const claim of claims) {
      const asked = await askSciFact(emulator, claim.text);
      rankings.set(claim.id, asked.ranked);
      cited.set(claim.id, asked.cited);
    }
    const { ndcg10, recall100 } = sciFactFigures(set, rankings, claims);
    t.diagnostic(`nDCG@10 ${ndcg10.toFixed(3)}, recall@100 ${recall100.toFixed(3)}`);
    assert.ok(ndcg10 >= NDCG_FLOOR, `nDCG@10 ${ndcg10.toFixed(3)}`);
  });

  test(`the score tells right sources from wrong: of the sources an agent would cite for those claims, a right one scores above a wrong one with a chance of at least ${SEPARATION_FLOOR.auc}, their medians at least ${SEPARATION_FLOOR.medianGap} apart, and 100% shows for at most one in ${1 / SEPARATION_FLOOR.hundred}`, (t) => {
    const { right, wrong } = citedScores(set, cited);
    const found = separation(right, wrong);
    t.diagnostic(describeSeparation(found));
    assert.ok(found.auc >= SEPARATION_FLOOR.auc, describeSeparation(found));
    assert.ok(found.rightMedian - found.wrongMedian >= SEPARATION_FLOOR.medianGap, describeSeparation(found));
    assert.ok(found.hundred <= SEPARATION_FLOOR.hundred * (found.right + found.wrong), describeSeparation(found));
  });

  test(`the datastore holds at most 200 MB resident once ingested and after each of ${PASSES} passes of the claims, and stops growing`, async (t) => {
    const after: number[] = [];
    for (let pass = 0; pass < PASSES; pass++) {
      for (const claim of set.queries) await askSciFact(emulator, claim.text);
      after.push(emulator.rss());
    }
    t.diagnostic(`resident: ${(ingested / MB).toFixed(0)} MB ingested, ${after.map((rss) => (rss / MB).toFixed(0)).join(', ')} MB after each pass`);
    if (ingested === 0) return t.skip('resident memory cannot be read on this system');
    for (const rss of [ingested, ...after]) assert.ok(rss <= RESIDENT_CAP, `${(rss / MB).toFixed(0)} MB resident`);
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    const growth = mean(after.slice(-3)) - mean(after.slice(1, 4));
    assert.ok(growth <= GROWTH_CAP, `the last three passes hold ${(growth / MB).toFixed(1)} MB more than the second to fourth`);
  });
});
