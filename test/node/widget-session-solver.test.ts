// The widget's solver of a challenge's parts (src/widget/answer-engine/sessions/solver.ts, `solveParts`), with a
// key derivation the test controls: each part in its lanes, one after another, and a stop that holds between parts.
// (Solving in Workers and on the main thread in the browsers: test/browser/widget-sessions.test.ts.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionChallenge } from '../../src/protocol/index.js';
import { solveParts } from '../../src/widget/answer-engine/sessions/solver.js';

/** A part whose key is below its target (`00000000`) at the counter the derivation says only; its salt names the part, so the derivation knows which it serves. */
const part = (index: number): SessionChallenge =>
  ({ parameters: { algorithm: 'PBKDF2/SHA-256', nonce: '00', salt: index.toString(16).padStart(2, '0'), keyBelow: 1, cost: 1, keyLength: 4, expiresAt: 0 }, signature: 's' }) as unknown as SessionChallenge;
const SOLVED = new Uint8Array(4);
const UNSOLVED = new Uint8Array([1, 0, 0, 0]);
const counterOf = (password: Uint8Array) => new DataView(password.buffer).getUint32(password.length - 4);

test('the parts are solved one after another, each solution in its place', async () => {
  const derived: number[] = [];
  const solutions = await solveParts({ challenges: [part(0), part(1), part(2)], start: 0, step: 1 }, undefined, async (password, salt) => {
    derived.push(salt[0]!);
    return counterOf(password) === 5 + salt[0]! ? SOLVED : UNSOLVED;
  });
  assert.deepEqual(solutions?.map((solution) => solution.counter), [5, 6, 7]);
  // No part's key was derived before the one before it was solved.
  assert.deepEqual(derived, [...derived].sort());
});

test('a stop that comes while a solved part\'s other lanes finish their keys stops before the next part', async () => {
  const stop = new AbortController();
  let release!: () => void;
  const finishing = new Promise<void>((resolve) => (release = resolve));
  const parts: number[] = [];
  const solving = solveParts({ challenges: [part(0), part(1), part(2)], start: 0, step: 1 }, stop.signal, async (password, salt) => {
    parts.push(salt[0]!);
    if (counterOf(password) === 2) {
      // Part 0 is solved by its third lane; the stop comes while the other lanes still wait for their keys.
      queueMicrotask(() => {
        stop.abort();
        release();
      });
      return SOLVED;
    }
    if (salt[0] === 0) await finishing;
    return UNSOLVED;
  });
  assert.equal(await solving, null);
  assert.deepEqual([...new Set(parts)], [0], 'no key derived for a later part');
});
