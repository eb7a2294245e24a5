import { errorBody, errorCodeForStatus } from 'kagent-chat/protocol';

/** A refusal with its status; thrown by handlers, answered by the router in the section-7 shape. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Record<string, string>;

  constructor(status: number, message: string, options: { code?: string; headers?: Record<string, string> } = {}) {
    super(message);
    this.status = status;
    this.code = options.code ?? errorCodeForStatus(status);
    this.headers = options.headers ?? {};
  }
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
  });
}

export function errorResponse(status: number, message: string, code = errorCodeForStatus(status), headers: Record<string, string> = {}): Response {
  return json(errorBody(code, message), status, headers);
}
