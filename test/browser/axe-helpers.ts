// axe-core checks shared by the widget's browser tests (not a test file itself).
import { expect } from '@open-wc/testing';
import type { AxeResults, RunOptions } from 'axe-core';

declare global {
  interface Window {
    axe: { run(context: Element, options: RunOptions): Promise<AxeResults> };
  }
}

/** axe-core, from its own file, as a page would load it. */
export async function loadAxe(): Promise<void> {
  if (window.axe) return;
  const script = document.createElement('script');
  script.src = '/node_modules/axe-core/axe.min.js';
  await new Promise((resolve, reject) => {
    script.onload = resolve;
    script.onerror = reject;
    document.head.append(script);
  });
}

/** Runs axe (WCAG 2.0–2.2 A and AA, and best practices) on the chat and fails with each violation spelled out. */
export async function expectNoViolations(chat: Element, state: string): Promise<void> {
  const results = await window.axe.run(chat, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
    // The chat is a part of a page; page-level rules (one main landmark, h1 first) are the page's.
    rules: { region: { enabled: false }, 'page-has-heading-one': { enabled: false }, 'landmark-one-main': { enabled: false } },
  });
  const problems = results.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
  expect(problems, `axe violations, ${state}`).to.deep.equal([]);
  // Make sure axe really looked inside the shadow root.
  expect(results.passes.some((p) => p.id === 'button-name' && p.nodes.length > 0), `axe checked buttons, ${state}`).to.equal(true);
}
