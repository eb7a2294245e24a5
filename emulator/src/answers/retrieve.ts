import type { Source } from 'kagent-chat/protocol';
import type { FragmentHit } from '../search/fragment-index.js';
import type { DatastoreIndexes } from '../search/indexes.js';
import type { DatasourceRow, FragmentRow } from '../store/records.js';
import type { Store } from '../store/store.js';
import { sourceOf } from '../present.js';
import { searchTerms } from '../search/terms.js';

/** Fragments an agent reads before it answers. */
export const AGENT_TOP_K = 8;

/** A retrieved fragment and the datasource it belongs to. */
export interface Retrieved extends FragmentHit {
  datasource: DatasourceRow;
  /**
   * The document's text just before the fragment ('' at the start of its page;
   * unset when unknown), so a quote can tell whether the fragment starts mid-sentence.
   */
  textBefore?: string;
  /** The document's text just after the fragment ('' at the end of its page; unset when unknown). */
  textAfter?: string;
}

/** How much of the neighbouring text a quote looks at: enough to reach back to a heading or a code fence, and on to a table's end. */
const CONTEXT_CHARS = 2000;

/** The best fragments of the agent's datastores for `query`, best first (`headingMatch`: see `SearchOptions`). */
export function retrieve(
  store: Store,
  indexes: DatastoreIndexes,
  datastoreIds: readonly string[],
  query: string,
  filter: ((datasourceId: string) => boolean) | undefined,
  { topK = AGENT_TOP_K, headingMatch = 0 }: { topK?: number; headingMatch?: number } = {},
): Retrieved[] {
  const hits: Retrieved[] = [];
  for (const datastoreId of datastoreIds) {
    for (const hit of indexes.of(datastoreId).query(query, { topK, headingMatch, ...(filter ? { datasourceFilter: filter } : {}) })) {
      const datasource = store.datasources.get(hit.datasourceId);
      if (datasource) hits.push({ ...hit, datasource, ...neighbouringText(store.fragments.get(hit.datasourceId) ?? [], hit.fragment) });
    }
  }
  return overviewFirst(hits.sort((a, b) => b.score - a.score).slice(0, topK), query);
}

/**
 * An overview before one of its options: when the best fragments come from several subsections
 * of one section ("Deploy to A", "Deploy to B") and the question names none of what tells those
 * apart (the words of their headings that not all of them share), the question asks about the
 * whole ("How do I deploy it?"), and a fragment of the section itself, which lists the options,
 * leads, when one was found, scored as the best of them (the section holds its subsections):
 * sources stay best first. Otherwise the order is the scores'.
 */
export function overviewFirst(hits: readonly Retrieved[], question: string): Retrieved[] {
  const section = hits[0]?.fragment.section ?? [];
  if (section.length < 2) return [...hits];
  const parent = section.slice(0, -1);
  const within = (path: readonly string[] | undefined, depth: number) => path !== undefined && path.length === depth && parent.every((title, i) => path[i] === title);
  const overview = hits.find((hit) => hit.datasource.id === hits[0]!.datasource.id && within(hit.fragment.section, parent.length));
  const options = new Set(hits.filter((hit) => hit.datasource.id === hits[0]!.datasource.id && within(hit.fragment.section, section.length)).map((hit) => hit.fragment.section!.at(-1)!));
  if (!overview || options.size < 2) return [...hits];
  const headings = [...options].map((title) => new Set(searchTerms(title)));
  const telling = new Set(headings.flatMap((terms) => [...terms].filter((term) => !headings.every((other) => other.has(term)))));
  if (searchTerms(question).some((term) => telling.has(term))) return [...hits];
  return [{ ...overview, score: hits[0]!.score, answerable: hits[0]!.answerable }, ...hits.filter((hit) => hit !== overview)];
}

/** The text around `fragment` in its document, read from the fragments before and after it (which overlap it). */
function neighbouringText(fragments: readonly FragmentRow[], fragment: FragmentRow): { textBefore: string; textAfter: string } | Record<string, never> {
  const index = fragments.indexOf(fragment);
  if (index < 0) return {};
  const samePage = (other: FragmentRow | undefined) => other !== undefined && other.pageNumber === fragment.pageNumber;
  const previous = fragments[index - 1];
  let textBefore = '';
  if (samePage(previous)) {
    const shared = fragment.offset - previous!.offset;
    // Fragments overlap; when they do not (a section starts a fragment), only white space lies
    // between them: a paragraph break when there is room for one, so a heading is seen standing alone.
    textBefore = shared <= previous!.text.length ? previous!.text.slice(0, shared) : `${previous!.text}${gap(shared - previous!.text.length)}`;
  }
  // After it, as far as CONTEXT_CHARS reaches: a list or table that starts in the fragment may go on for a while.
  let textAfter = '';
  let end = fragment.offset + fragment.text.length;
  for (let i = index + 1; i < fragments.length && samePage(fragments[i]) && textAfter.length < CONTEXT_CHARS; i++) {
    const following = fragments[i]!;
    if (following.offset + following.text.length <= end) continue;
    textAfter += following.offset <= end ? following.text.slice(end - following.offset) : `${gap(following.offset - end)}${following.text}`;
    end = following.offset + following.text.length;
  }
  return { textBefore: textBefore.slice(-CONTEXT_CHARS), textAfter: textAfter.slice(0, CONTEXT_CHARS) };
}

/** The white space between two fragments that do not overlap: a line break, or a paragraph break for two characters or more. */
function gap(length: number): string {
  return length >= 2 ? '\n\n' : '\n';
}

/**
 * The answer's sources as the service picks them (wire-format.md): fragments
 * scored above `threshold`, best first, one per datasource. `hits[i]` is
 * the fragment behind `sources[i]`, so `[i+1]` in the answer cites it. When
 * none is, the best fragment scored at least `closest` is the one source, and
 * `closest` is true: the answer quotes it as the closest found rather than
 * saying it knows nothing. That passage is the best of those scored at least
 * `closest` that `answers` takes (what the kind of question asks for: a figure
 * for "how big"), when one does: close as they all are, the one that can
 * answer is the closest. When the best fragment's `answerable` is below
 * `answerableLine`, the datastore holds nothing that answers the question:
 * no source at all, however the fragments scored.
 */
export function pickSources(
  retrieved: readonly Retrieved[],
  threshold: number,
  fileUrl: (row: DatasourceRow) => string | undefined,
  closest = threshold,
  answers: (hit: Retrieved) => boolean = () => true,
  answerableLine = 0,
): { sources: Source[]; hits: Retrieved[]; closest: boolean } {
  const seen = new Set<string>();
  const hits: Retrieved[] = [];
  if (retrieved.length === 0 || retrieved[0]!.answerable < answerableLine) return { sources: [], hits, closest: false };
  for (const hit of retrieved) {
    if (hit.score <= threshold || seen.has(hit.datasource.id)) continue;
    seen.add(hit.datasource.id);
    hits.push(hit);
  }
  const near = retrieved.filter((hit) => hit.score >= closest && hit.score > 0);
  const best = near.find(answers) ?? near[0];
  const nearest = hits.length === 0 && best !== undefined;
  if (nearest) hits.push(best);
  return { sources: hits.map((hit) => sourceOf(hit, hit.datasource, fileUrl)), hits, closest: nearest };
}
