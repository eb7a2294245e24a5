import { describeProblems, type CheckResult } from 'kagent-chat/protocol';
import { HttpError } from './responses.js';

/** JSON bodies above this are refused; uploads have their own limit. */
const MAX_JSON_BYTES = 5 * 1024 * 1024;

/** Reads a JSON body. An empty body reads as `{}` (the deletes' body is an empty object). */
export async function readJson(request: Request): Promise<unknown> {
  const declared = Number(request.headers.get('Content-Length') ?? '0');
  if (declared > MAX_JSON_BYTES) throw new HttpError(413, `The body is larger than ${MAX_JSON_BYTES} bytes.`);
  const text = await request.text();
  if (text.length > MAX_JSON_BYTES) throw new HttpError(413, `The body is larger than ${MAX_JSON_BYTES} bytes.`);
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new HttpError(400, `The body is not valid JSON: ${(error as Error).message}`);
  }
}

/** The checked value, or a 400 naming every invalid field and its rule. */
export function valid<T>(result: CheckResult<T>): T {
  if (result.ok) return result.value;
  throw new HttpError(400, `Invalid request: ${describeProblems(result.problems)}`);
}

/** Reads a multipart body, refusing it before reading when it is declared too large. */
export async function readForm(request: Request, maxBytes: number): Promise<FormData> {
  const type = request.headers.get('Content-Type') ?? '';
  if (!type.toLowerCase().startsWith('multipart/form-data')) {
    throw new HttpError(400, `Content-Type must be multipart/form-data, got ${type || 'none'}.`);
  }
  const declared = Number(request.headers.get('Content-Length') ?? '0');
  if (declared > maxBytes) throw new HttpError(413, `The upload is larger than ${maxBytes} bytes.`);
  try {
    return await request.formData();
  } catch (error) {
    throw new HttpError(400, `The multipart body could not be read: ${(error as Error).message}`);
  }
}

/** The text fields of a form, as an object for the protocol checks. */
export function formFields(form: FormData, names: readonly string[]): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const name of names) {
    const value = form.get(name);
    if (value !== null) fields[name] = typeof value === 'string' ? value : `(a file)`;
  }
  return fields;
}

/** `page` and `limit` of a list (1-based page; 20 per page, at most 100). */
export function pageOf(url: URL): { page: number; limit: number } {
  const read = (name: string, fallback: number, max: number): number => {
    const raw = url.searchParams.get(name);
    if (raw === null) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new HttpError(400, `Invalid request: ${name} must be a whole number of at least 1`);
    return Math.min(Number(raw), max);
  };
  return { page: read('page', 1, Number.MAX_SAFE_INTEGER), limit: read('limit', 20, 100) };
}
