/** The eight file types the service ingests (section 4.7). */
export const UPLOAD_MIME_TYPES = [
  'text/csv',
  'text/plain',
  'text/markdown',
  'application/pdf',
  'application/json',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
] as const;

export type UploadMimeType = (typeof UPLOAD_MIME_TYPES)[number];

/** File name endings for the upload types, for files whose type is unknown (a Blob read from disk has none). */
export const UPLOAD_EXTENSIONS: Readonly<Record<string, UploadMimeType>> = {
  csv: 'text/csv',
  txt: 'text/plain',
  text: 'text/plain',
  md: 'text/markdown',
  markdown: 'text/markdown',
  pdf: 'application/pdf',
  json: 'application/json',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

const supported = new Set<string>(UPLOAD_MIME_TYPES);

/** Whether `type` (parameters such as `; charset=utf-8` ignored) is an upload type. */
export function isUploadMimeType(type: string): type is UploadMimeType {
  return supported.has(essence(type));
}

/**
 * The upload type of a file: its declared type when it has one, else the type
 * its name's ending implies. `undefined` when neither names a supported type.
 */
export function uploadMimeTypeOf(declaredType: string | undefined, fileName: string | undefined): UploadMimeType | undefined {
  const declared = essence(declaredType ?? '');
  if (declared && declared !== 'application/octet-stream') {
    return isUploadMimeType(declared) ? declared : undefined;
  }
  const ending = fileName?.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1];
  return ending ? UPLOAD_EXTENSIONS[ending] : undefined;
}

function essence(type: string): string {
  return type.split(';', 1)[0]!.trim().toLowerCase();
}
