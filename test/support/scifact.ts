// BEIR SciFact (5,183 abstracts, 300 test claims with relevance judgments),
// read from the shared data folder beside the repository (`../shared/data/scifact`
// from its root, or the folder KAGENT_SCIFACT_DIR names): loading it, uploading
// it to an emulator as plain text, asking its claims through
// `POST /datastores/{id}/query`, and the figures BEIR reports (nDCG@10, recall@100).
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface SciFactDocument {
  id: string;
  title: string;
  text: string;
}

export interface SciFact {
  corpus: SciFactDocument[];
  /** The test claims, by id, in the order of the judgments. */
  queries: { id: string; text: string }[];
  /** Per test claim, the documents judged relevant and their grade. */
  judgments: Map<string, Map<string, number>>;
}

/** Where SciFact is, or `undefined` when it is not on this machine (a test then skips, saying so). */
export function sciFactFolder(): string | undefined {
  const folder = process.env.KAGENT_SCIFACT_DIR ?? fileURLToPath(new URL('../../../shared/data/scifact/', import.meta.url));
  return existsSync(`${folder}/corpus.jsonl`) ? folder : undefined;
}

export const SCIFACT_MISSING = 'BEIR SciFact is not on this machine (../shared/data/scifact beside the repository, or KAGENT_SCIFACT_DIR)';

export function loadSciFact(folder: string): SciFact {
  const lines = (name: string) => readFileSync(`${folder}/${name}`, 'utf8').split('\n').filter(Boolean);
  const corpus = lines('corpus.jsonl').map((line) => {
    const { _id, title, text } = JSON.parse(line) as { _id: string; title: string; text: string };
    return { id: _id, title, text };
  });
  const judgments = new Map<string, Map<string, number>>();
  for (const line of lines('qrels/test.tsv').slice(1)) {
    const [queryId, documentId, grade] = line.split('\t');
    const judged = judgments.get(queryId!) ?? new Map<string, number>();
    judged.set(documentId!, Number(grade));
    judgments.set(queryId!, judged);
  }
  const texts = new Map(lines('queries.jsonl').map((line) => {
    const { _id, text } = JSON.parse(line) as { _id: string; text: string };
    return [_id, text] as const;
  }));
  const queries = [...judgments.keys()].map((id) => ({ id, text: texts.get(id)! }));
  return { corpus, queries, judgments };
}

/** A SciFact abstract as a plain text document: its title, a blank line, its text. */
export const documentText = (document: SciFactDocument) => `${document.title}\n\n${document.text}`;

/** nDCG@k as BEIR computes it (trec_eval's: gain = grade, log2 discount), for one ranked list of document ids. */
export function ndcgAt(k: number, ranked: readonly string[], judged: ReadonlyMap<string, number>): number {
  let dcg = 0;
  for (const [i, id] of ranked.slice(0, k).entries()) dcg += (judged.get(id) ?? 0) / Math.log2(i + 2);
  const ideal = [...judged.values()].sort((a, b) => b - a).slice(0, k);
  const idcg = ideal.reduce((sum, grade, i) => sum + grade / Math.log2(i + 2), 0);
  return idcg > 0 ? dcg / idcg : 0;
}

/** The share of the relevant documents among the first k. */
export function recallAt(k: number, ranked: readonly string[], judged: ReadonlyMap<string, number>): number {
  const relevant = [...judged].filter(([, grade]) => grade > 0).map(([id]) => id);
  const top = new Set(ranked.slice(0, k));
  return relevant.length ? relevant.filter((id) => top.has(id)).length / relevant.length : 0;
}

/** The scores of the citations of claims (`cited`, by claim id): those of an abstract judged relevant, and the others. */
export function citedScores(set: SciFact, cited: ReadonlyMap<string, readonly { id: string; score: number }[]>): { right: number[]; wrong: number[] } {
  const right: number[] = [];
  const wrong: number[] = [];
  for (const [claim, sources] of cited) {
    const judged = set.judgments.get(claim)!;
    for (const source of sources) ((judged.get(source.id) ?? 0) > 0 ? right : wrong).push(source.score);
  }
  return { right, wrong };
}

/** Mean nDCG@10 and recall@100 of rankings (by claim id) over the claims given. */
export function sciFactFigures(set: SciFact, rankings: ReadonlyMap<string, readonly string[]>, queries = set.queries): { ndcg10: number; recall100: number } {
  let ndcg = 0;
  let recall = 0;
  for (const { id } of queries) {
    const ranked = rankings.get(id) ?? [];
    ndcg += ndcgAt(10, ranked, set.judgments.get(id)!);
    recall += recallAt(100, ranked, set.judgments.get(id)!);
  }
  return { ndcg10: ndcg / queries.length, recall100: recall / queries.length };
}

interface Service {
  url: string;
  apiKey: string;
  datastoreId: string;
}

const headersOf = (service: Service) => ({ Authorization: `Bearer ${service.apiKey}`, 'Content-Type': 'application/json' });

/** Uploads the abstracts as plain text documents (the abstract's id as `custom_id`), 100 a call. */
export async function uploadSciFact(service: Service, corpus: readonly SciFactDocument[]): Promise<void> {
  for (let from = 0; from < corpus.length; from += 100) {
    const documents = corpus.slice(from, from + 100).map((document) => ({ name: document.title.slice(0, 200) || document.id, text: documentText(document), metadata: { custom_id: document.id } }));
    const response = await fetch(`${service.url}/datastores/upsert/${service.datastoreId}`, { method: 'POST', headers: headersOf(service), body: JSON.stringify({ documents }) });
    if (!response.ok) throw new Error(`upsert failed: ${response.status} ${await response.text()}`);
  }
}

/** The fragments an agent reads (emulator/src/answers/retrieve.ts), and the threshold its sources are cited above. */
const AGENT_READS = 8;
const CITED_ABOVE = 0.7;

/**
 * Asks one claim of the datastore (its `topK` best fragments): the abstracts found, best first,
 * each once; those an agent would cite (of the first 8 fragments, scored above 0.7, each abstract
 * once) with their scores; and the time it took.
 */
export async function askSciFact(service: Service, claim: string, topK = 100): Promise<{ ranked: string[]; cited: { id: string; score: number }[]; ms: number }> {
  const start = performance.now();
  const response = await fetch(`${service.url}/datastores/${service.datastoreId}/query`, { method: 'POST', headers: headersOf(service), body: JSON.stringify({ query: claim, topK }) });
  const hits = (await response.json()) as { custom_id?: string; score: number }[];
  const ms = performance.now() - start;
  if (!response.ok) throw new Error(`query failed: ${response.status} ${JSON.stringify(hits)}`);
  const cited = new Map<string, number>();
  for (const hit of hits.slice(0, AGENT_READS)) if (hit.score > CITED_ABOVE && !cited.has(hit.custom_id ?? '')) cited.set(hit.custom_id ?? '', hit.score);
  return { ranked: [...new Set(hits.map((hit) => hit.custom_id ?? ''))], cited: [...cited].map(([id, score]) => ({ id, score })), ms };
}


/**
 * SciFact searched in process, as the emulator's datastore search ranks it (the abstracts
 * ingested as plain text, the index tidied as a settled datastore holds it): per claim, its
 * best fragments as the search gives them (`topK`), with their documents and scores.
 */
export async function searchSciFactInProcess(set: SciFact, topK = 100): Promise<Map<string, { id: string; score: number }[]>> {
  const [{ extractPlainText }, { fragmentsOf }, { FragmentIndex }] = await Promise.all([
    import('../../emulator/src/ingest/text.js'),
    import('../../emulator/src/ingest-queue.js'),
    import('../../emulator/src/search/fragment-index.js'),
  ]);
  const index = new FragmentIndex();
  for (const document of set.corpus) index.replace(document.id, fragmentsOf(extractPlainText(Buffer.from(documentText(document)))));
  index.tidy();
  return new Map(set.queries.map((query) => [query.id, index.query(query.text, { topK }).map((hit) => ({ id: hit.datasourceId, score: hit.score }))]));
}
