// The work a reader does for ingestion: reading a file, and splitting its text into fragments.
import type { ExtractedDocument } from './document.js';
import { extractInThisThread, type UploadedFile } from './extract.js';
import { splitIntoFragments, type TextFragment } from './fragments.js';
import type { TextLimits } from './text-limits.js';
import { analyseFragments, type FragmentTerms } from '../search/fields.js';

/** What a worker is asked to do. */
export type ExtractTask =
  | { kind: 'extract'; file: UploadedFile; limits: TextLimits }
  | { kind: 'fragments'; file: UploadedFile; limits: TextLimits }
  | { kind: 'split'; document: ExtractedDocument };

/** A file read and split: what ingestion keeps of it. */
export interface SplitDocument {
  fragments: TextFragment[];
  /** The fragments analysed for the search index, here rather than on the server's thread. */
  terms: FragmentTerms;
  title?: string;
  totalPages?: number;
}

export type TaskResult = { kind: 'document'; document: ExtractedDocument } | { kind: 'split'; split: SplitDocument };

/** Runs a task in the calling thread (the worker's, or the server's when workers cannot start). */
export async function runTask(task: ExtractTask): Promise<TaskResult> {
  if (task.kind === 'split') return { kind: 'split', split: splitOf(task.document) };
  const document = await extractInThisThread(task.file, task.limits);
  return task.kind === 'extract' ? { kind: 'document', document } : { kind: 'split', split: splitOf(document) };
}

function splitOf(document: ExtractedDocument): SplitDocument {
  const fragments = splitIntoFragments(document);
  return {
    fragments,
    terms: analyseFragments(fragments),
    ...(document.title !== undefined ? { title: document.title } : {}),
    ...(document.totalPages !== undefined ? { totalPages: document.totalPages } : {}),
  };
}

