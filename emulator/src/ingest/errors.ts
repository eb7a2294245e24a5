/** A file or web address that cannot be ingested; `message` is the reason, written for the person who uploaded it. */
export class IngestError extends Error {
  override name = 'IngestError';
}

/** The reason inside any thrown value, for wrapping a parser's own error in an `IngestError`. */
export function reasonOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
