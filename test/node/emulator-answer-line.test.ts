// The line below which an agent says "I don't know" (the closest threshold), held on judged
// public sets of two kinds, with half of each set's questions left with nothing relevant in the
// datastore (test/support/answer-line.ts): StackFAQ's forum questions about web apps, shipped in
// test/fixtures/stackfaq, and SciFact's claims, when the shared data folder has it. Floors a little
// under what the search gives today (StackFAQ 3.7% of the answerable questions below the line, 76.7%
// answered right; SciFact 4.1% and 54.6%); they fail if a change to the score or the line makes the
// agent refuse questions it has the answer for.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_CLOSEST_THRESHOLD, DEFAULT_SOURCE_THRESHOLD } from '../../emulator/src/options.js';
import { bestPassages, lineFigures, sciFactSplit, stackFaqSplit, type SplitSet } from '../support/answer-line.js';
import { SCIFACT_MISSING, loadSciFact, sciFactFolder } from '../support/scifact.js';

function lineTests(name: string, split: () => SplitSet, floors: { refusedAtMost: number; rightAtLeast: number }) {
  test(`${name}: at most ${floors.refusedAtMost * 100}% of the questions that can be answered fall below the closest line, at least ${floors.rightAtLeast * 100}% get a right passage at or above it, and the line lets fewer answers through than the sources' threshold refuses`, () => {
    const best = bestPassages(split());
    const closest = lineFigures(best, DEFAULT_CLOSEST_THRESHOLD);
    const cited = lineFigures(best, DEFAULT_SOURCE_THRESHOLD);
    assert.ok(closest.below / closest.answerable <= floors.refusedAtMost, JSON.stringify(closest));
    assert.ok(closest.rightAbove / closest.answerable >= floors.rightAtLeast, JSON.stringify(closest));
    // The closest line is lower than the sources' threshold: it refuses fewer, and lets more noise through, said so.
    assert.ok(closest.below < cited.below && closest.noiseAbove >= cited.noiseAbove, `${JSON.stringify(closest)} against ${JSON.stringify(cited)}`);
  });
}

describe('the "I don\'t know" line on judged public sets', () => {
  lineTests('StackFAQ', stackFaqSplit, { refusedAtMost: 0.06, rightAtLeast: 0.74 });
  const folder = sciFactFolder();
  if (folder) lineTests('SciFact', () => sciFactSplit(loadSciFact(folder)), { refusedAtMost: 0.06, rightAtLeast: 0.52 });
  else test('SciFact', { skip: SCIFACT_MISSING }, () => {});
});
