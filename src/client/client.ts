import * as v from 'valibot';
import {
  AgentRecord,
  ConversationRecord,
  DatasourceRecord,
  DatastoreFragmentRecord,
  DatastoreRecord,
  UPLOAD_MIME_TYPES,
  UpdateDocumentAnswerRecord,
  UpsertAnswerRecord,
  checkAgentCreate,
  checkAgentQuery,
  checkAgentUpdate,
  checkConversationsQuery,
  checkDatastoreCreate,
  checkDatastoreQuery,
  checkDatastoreUpdate,
  checkFileDatasourceFields,
  checkFileUploadFields,
  checkUpdateDocument,
  checkUpsertDocuments,
  checkV1Upsert,
  checkWebDatasource,
  describeProblems,
  listOf,
  readAgentQueryAnswer,
  uploadMimeTypeOf,
  ChallengeAnswerRecord,
  SESSION_HEADER,
  SESSION_ROUTES,
  SessionGrantRecord,
  checkWith,
  SessionRequestBody,
  solveSessionChallenges,
  type ChallengeAnswer,
  type SessionGrant,
  type SessionRequest,
  type Agent,
  type AgentCreateBody,
  type AgentQueryAnswer,
  type AgentQueryBody,
  type AgentUpdateBody,
  type CheckResult,
  type Conversation,
  type Datasource,
  type Datastore,
  type DatastoreCreateBody,
  type DatastoreFragment,
  type DatastoreQueryBody,
  type DatastoreUpdateBody,
  type ListResponse,
  type UpdateDocumentAnswer,
  type UpdateDocumentBody,
  type UpsertAnswer,
  type UpsertDocumentsBody,
  type V1UpsertBody,
  type WebDatasourceBody,
} from '../protocol/index.js';
import { AgentAnswerStream } from './answer-stream.js';
import { KagentError, errorFromResponse } from './errors.js';

export interface KagentClientOptions {
  /** The service's address, or your proxy's (`https://example.com/api/chat`). */
  baseUrl: string;
  /** The API key. Server-side only: omit it when talking to a proxy or a public agent. */
  apiKey?: string;
  /**
   * Prefix of the endpoints that exist in both forms (queries, updates,
   * deletes, datasources): `''` (the default) for `/agents/...`, `'/v1'` for
   * `/v1/agents/...`. The `/v1`-only endpoints always use `/v1`; the
   * deprecated document endpoints exist only unversioned.
   */
  pathPrefix?: '' | '/v1' | (string & {});
  /** The fetch to use (a test double, or one with a proxy agent). */
  fetch?: typeof globalThis.fetch;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
  /**
   * Talking to a kagent proxy with visitor sessions on: earn a session (solve
   * the proxy's challenge) before the first query, send its token with every
   * agent and datastore query, renew it before it runs out, and when a query is
   * refused for its session (`needsNewSession`), renew and send it once more.
   * Default: false.
   */
  sessions?: boolean;
  /**
   * A fresh Cloudflare Turnstile token for each new session, when the proxy's
   * challenge asks for one (`humanCheck: 'turnstile'`; its `turnstileSiteKey`
   * is passed). Tokens are single-use: give a new one each time.
   */
  turnstileToken?: (siteKey: string, signal: AbortSignal | undefined) => Promise<string>;
}

/** Options of `sessions.start()`. */
export interface StartSessionOptions extends CallOptions {
  /** A Cloudflare Turnstile token, when the proxy's challenge says `humanCheck: 'turnstile'` (default: the client's `turnstileToken` option's). */
  turnstileToken?: string;
}

/** Options of every call. */
export interface CallOptions {
  signal?: AbortSignal;
}

/** A file to upload: a `Blob` or `File` (in Node, `fs.openAsBlob(path)`). */
export interface FileUpload {
  file: Blob;
  /** Defaults to the `File`'s name. Its ending gives the type when the Blob has none. */
  fileName?: string;
  /** Your own id for the datasource, kept and filterable. */
  custom_id?: string;
}

type RequestInit = {
  json?: unknown;
  headers?: Record<string, string>;
  form?: FormData;
  query?: Record<string, string>;
  accept?: string;
  signal?: AbortSignal | undefined;
};

/**
 * A typed client for every endpoint of the Knowledge-Agent Service. Runs in
 * Node 20+, browsers, Deno, Bun and Workers (it needs only `fetch`).
 *
 * Every failure is a `KagentError` with `status`, `code`, `message` and
 * `retryAfter`. Bodies are checked before sending, so a mistake is reported
 * with every invalid field instead of a round trip. The API key is sent only
 * in the `Authorization` header and never appears in an error message.
 */
export class KagentClient {
  readonly #baseUrl: string;
  readonly #prefix: string;
  readonly #apiKey: string | undefined;
  readonly #fetch: typeof globalThis.fetch;
  readonly #headers: Record<string, string>;
  readonly #sessions: boolean;
  readonly #turnstileToken: KagentClientOptions['turnstileToken'];
  /** The session in use, and when to renew it (this machine's clock). */
  #session: { token: string; renewAt: number } | undefined;
  /** A session being earned, shared by the queries that wait for it. */
  #earning: Promise<string> | undefined;

  constructor(options: KagentClientOptions) {
    let base: URL;
    try {
      base = new URL(options.baseUrl);
    } catch {
      throw new TypeError(`baseUrl must be an absolute address, got ${JSON.stringify(options.baseUrl)}`);
    }
    this.#baseUrl = base.href.replace(/\/+$/, '');
    this.#prefix = (options.pathPrefix ?? '').replace(/\/+$/, '');
    this.#apiKey = options.apiKey || undefined;
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#headers = { ...options.headers };
    this.#sessions = options.sessions === true;
    this.#turnstileToken = options.turnstileToken;
  }

  /** Visitor sessions of a kagent proxy (docs/proxy.md, Visitor sessions). */
  readonly sessions = {
    /** `POST /sessions/challenge`: a proof-of-work challenge to solve. */
    challenge: async (options: CallOptions = {}): Promise<ChallengeAnswer> => {
      const response = await this.#send('POST', SESSION_ROUTES.challenge, { json: {}, signal: options.signal });
      return this.#read(response, ChallengeAnswerRecord);
    },

    /** `POST /sessions`: a solved challenge (every part, with its solution) turned into a session token. */
    create: async (body: SessionRequest, options: CallOptions = {}): Promise<SessionGrant> => {
      checked(checkWith(SessionRequestBody, body));
      const response = await this.#send('POST', SESSION_ROUTES.session, { json: body, signal: options.signal });
      return this.#read(response, SessionGrantRecord);
    },

    /**
     * Earns a session: asks for a challenge, solves it (WebCrypto, about a second
     * of one core at the proxy's default difficulty) and creates the session. The
     * token is kept and sent with later queries when the `sessions` option is on.
     */
    start: async (options: StartSessionOptions = {}): Promise<SessionGrant> => {
      const { challenges, humanCheck, turnstileSiteKey } = await this.sessions.challenge(options);
      // Asked while the challenge is solved: the visitor's check and the work overlap.
      const check = options.turnstileToken ?? (humanCheck === 'turnstile' && turnstileSiteKey && this.#turnstileToken ? this.#turnstileToken(turnstileSiteKey, options.signal) : undefined);
      // Its failure is thrown when awaited below, not reported meanwhile as unhandled.
      if (typeof check === 'object') check.catch(() => {});
      const solutions = await solveSessionChallenges(challenges, options.signal ? { signal: options.signal } : {});
      if (!solutions) throw new KagentError({ status: 0, code: 'INVALID_RESPONSE', message: options.signal?.aborted ? 'Stopped before the challenge was solved.' : 'The challenge has no solution.' });
      const turnstileToken = await check;
      const grant = await this.sessions.create({ challenges, solutions, ...(turnstileToken === undefined ? {} : { turnstileToken }) }, options);
      // Renewed when a fifth of its time is left, so a question never goes with a token about to expire.
      this.#session = { token: grant.token, renewAt: Date.now() + grant.expiresInSeconds * 800 };
      return grant;
    },
  };

  /** The token to send: the current one, or a new session's when there is none or it is due for renewal. */
  #sessionToken(signal: AbortSignal | undefined): Promise<string> {
    if (this.#session && Date.now() < this.#session.renewAt) return Promise.resolve(this.#session.token);
    this.#earning ??= this.sessions.start(signal ? { signal } : {}).then(
      (grant) => {
        this.#earning = undefined;
        return grant.token;
      },
      (error: unknown) => {
        this.#earning = undefined;
        throw error;
      },
    );
    return this.#earning;
  }

  /** Sends a query, with the session's token when sessions are on; renews once and sends again when refused for its session. */
  async #query(path: string, init: RequestInit): Promise<Response> {
    if (!this.#sessions) return this.#send('POST', path, init);
    const token = await this.#sessionToken(init.signal);
    try {
      return await this.#send('POST', path, { ...init, headers: { [SESSION_HEADER]: token } });
    } catch (error) {
      if (!(error instanceof KagentError) || !error.needsNewSession) throw error;
      if (this.#session?.token === token) this.#session = undefined;
      return this.#send('POST', path, { ...init, headers: { [SESSION_HEADER]: await this.#sessionToken(init.signal) } });
    }
  }

  /** Agents (AI Employees). */
  readonly agents = {
    /** `POST /agents/{id}/query`: the whole answer as JSON. */
    query: async (agentId: string, body: Omit<AgentQueryBody, 'streaming'>, options: CallOptions = {}): Promise<AgentQueryAnswer> => {
      checked(checkAgentQuery(body));
      const response = await this.#query(`${this.#prefix}/agents/${id(agentId)}/query`, { json: body, signal: options.signal });
      const result = readAgentQueryAnswer(await this.#read(response, v.unknown()));
      if (!result.ok) throw invalidResponse(response, describeProblems(result.problems));
      return result.value;
    },

    /**
     * `POST /agents/{id}/query` with `streaming: true`: the answer as typed
     * events. Nothing is sent until iteration starts; it is sent once.
     */
    stream: (agentId: string, body: Omit<AgentQueryBody, 'streaming'>, options: CallOptions = {}): AgentAnswerStream => {
      checked(checkAgentQuery(body));
      const path = `${this.#prefix}/agents/${id(agentId)}/query`;
      return new AgentAnswerStream(
        (signal) => this.#query(path, { json: { ...body, streaming: true }, accept: 'text/event-stream', signal }),
        options.signal,
      );
    },

    /** `PATCH /agents/{id}`. */
    update: async (agentId: string, body: AgentUpdateBody, options: CallOptions = {}): Promise<Agent> => {
      checked(checkAgentUpdate(body));
      const response = await this.#send('PATCH', `${this.#prefix}/agents/${id(agentId)}`, { json: body, signal: options.signal });
      return this.#read(response, AgentRecord);
    },

    /** `DELETE /agents/{id}`: resolves with the deleted agent. */
    delete: async (agentId: string, options: CallOptions = {}): Promise<Agent> => {
      const response = await this.#send('DELETE', `${this.#prefix}/agents/${id(agentId)}`, { json: {}, signal: options.signal });
      return this.#read(response, AgentRecord);
    },

    /** `GET /v1/agents`. */
    list: async (options: CallOptions = {}): Promise<ListResponse<Agent>> => {
      const response = await this.#send('GET', '/v1/agents', { signal: options.signal });
      return this.#readList(response, AgentRecord);
    },

    /** `POST /agents`: not in the interface description; the emulator's design. */
    create: async (body: AgentCreateBody, options: CallOptions = {}): Promise<Agent> => {
      checked(checkAgentCreate(body));
      const response = await this.#send('POST', `${this.#prefix}/agents`, { json: body, signal: options.signal });
      return this.#read(response, AgentRecord);
    },

    /** `GET /agents/{id}`: not in the interface description; the emulator's design. */
    get: async (agentId: string, options: CallOptions = {}): Promise<Agent> => {
      const response = await this.#send('GET', `${this.#prefix}/agents/${id(agentId)}`, { signal: options.signal });
      return this.#read(response, AgentRecord);
    },

    /** `GET /v1/agents/{id}/conversations`: at most `limit`, only those after `after`. */
    conversations: async (
      agentId: string,
      query: { limit?: number; after?: Date | string } = {},
      options: CallOptions = {},
    ): Promise<ListResponse<Conversation>> => {
      const after = query.after instanceof Date ? query.after.toISOString() : query.after;
      checked(checkConversationsQuery({ limit: query.limit, after }));
      const params: Record<string, string> = {};
      if (query.limit !== undefined) params.limit = String(query.limit);
      if (after !== undefined) params.after = after;
      const response = await this.#send('GET', `/v1/agents/${id(agentId)}/conversations`, { query: params, signal: options.signal });
      return this.#readList(response, ConversationRecord);
    },
  };

  /** Datastores: searchable collections of datasources. */
  readonly datastores = {
    /** `POST /datastores/{id}/query`: the `topK` most similar fragments, best first. */
    query: async (datastoreId: string, body: DatastoreQueryBody, options: CallOptions = {}): Promise<DatastoreFragment[]> => {
      checked(checkDatastoreQuery(body));
      const response = await this.#query(`${this.#prefix}/datastores/${id(datastoreId)}/query`, { json: body, signal: options.signal });
      return this.#read(response, v.array(DatastoreFragmentRecord));
    },

    /** `PATCH /datastores/{id}`. */
    update: async (datastoreId: string, body: DatastoreUpdateBody, options: CallOptions = {}): Promise<Datastore> => {
      checked(checkDatastoreUpdate(body));
      const response = await this.#send('PATCH', `${this.#prefix}/datastores/${id(datastoreId)}`, { json: body, signal: options.signal });
      return this.#read(response, DatastoreRecord);
    },

    /** `DELETE /datastores/{id}`: resolves with the deleted datastore. */
    delete: async (datastoreId: string, options: CallOptions = {}): Promise<Datastore> => {
      const response = await this.#send('DELETE', `${this.#prefix}/datastores/${id(datastoreId)}`, { json: {}, signal: options.signal });
      return this.#read(response, DatastoreRecord);
    },

    /** `POST /datastores`: not in the interface description; the emulator's design. */
    create: async (body: DatastoreCreateBody, options: CallOptions = {}): Promise<Datastore> => {
      checked(checkDatastoreCreate(body));
      const response = await this.#send('POST', `${this.#prefix}/datastores`, { json: body, signal: options.signal });
      return this.#read(response, DatastoreRecord);
    },

    /** `GET /datastores`: not in the interface description; the emulator's design. */
    list: async (options: CallOptions = {}): Promise<ListResponse<Datastore>> => {
      const response = await this.#send('GET', `${this.#prefix}/datastores`, { signal: options.signal });
      return this.#readList(response, DatastoreRecord);
    },

    /** `GET /datastores/{id}`: not in the interface description; the emulator's design. */
    get: async (datastoreId: string, options: CallOptions = {}): Promise<Datastore> => {
      const response = await this.#send('GET', `${this.#prefix}/datastores/${id(datastoreId)}`, { signal: options.signal });
      return this.#read(response, DatastoreRecord);
    },

    /** `GET /datastores/{id}/datasources`: not in the interface description; the emulator's design. */
    datasources: async (datastoreId: string, options: CallOptions = {}): Promise<ListResponse<Datasource>> => {
      const response = await this.#send('GET', `${this.#prefix}/datastores/${id(datastoreId)}/datasources`, { signal: options.signal });
      return this.#readList(response, DatasourceRecord);
    },

    /** `POST /v1/datastores/{id}/upsert`: adds documents, or replaces those whose `id` exists. The answer's shape is not documented. */
    upsert: async (datastoreId: string, body: V1UpsertBody, options: CallOptions = {}): Promise<Record<string, unknown>> => {
      checked(checkV1Upsert(body));
      const response = await this.#send('POST', `/v1/datastores/${id(datastoreId)}/upsert`, { json: body, signal: options.signal });
      return this.#read(response, v.looseObject({}));
    },
  };

  /** Datasources: the files and web pages a datastore is made of. */
  readonly datasources = {
    /** `POST /datasources` as `multipart/form-data`. The file's type is checked before anything is sent. */
    uploadFile: async (upload: FileUpload & { datastoreId: string }, options: CallOptions = {}): Promise<Datasource> => {
      const fileName = upload.fileName ?? fileNameOf(upload.file);
      checked(checkFileDatasourceFields({ type: 'file', datastoreId: upload.datastoreId, fileName, custom_id: upload.custom_id }));
      const form = new FormData();
      form.set('type', 'file');
      form.set('datastoreId', upload.datastoreId);
      if (fileName !== undefined) form.set('fileName', fileName);
      if (upload.custom_id !== undefined) form.set('custom_id', upload.custom_id);
      form.set('file', typedFile(upload.file, fileName), fileName ?? 'file');
      const response = await this.#send('POST', `${this.#prefix}/datasources`, { form, signal: options.signal });
      return this.#read(response, DatasourceRecord);
    },

    /** `POST /datasources` as JSON: a `web_page` or a `web_site`. */
    createFromWeb: async (body: WebDatasourceBody, options: CallOptions = {}): Promise<Datasource> => {
      checked(checkWebDatasource(body));
      const response = await this.#send('POST', `${this.#prefix}/datasources`, { json: body, signal: options.signal });
      return this.#read(response, DatasourceRecord);
    },

    /** `GET /datasources/{id}`: not in the interface description; the emulator's design. Its `status` tells how ingestion goes. */
    get: async (datasourceId: string, options: CallOptions = {}): Promise<Datasource> => {
      const response = await this.#send('GET', `${this.#prefix}/datasources/${id(datasourceId)}`, { signal: options.signal });
      return this.#read(response, DatasourceRecord);
    },

    /** `DELETE /datasources/{id}`: resolves with the deleted datasource. */
    delete: async (datasourceId: string, options: CallOptions = {}): Promise<Datasource> => {
      const response = await this.#send('DELETE', `${this.#prefix}/datasources/${id(datasourceId)}`, { json: {}, signal: options.signal });
      return this.#read(response, DatasourceRecord);
    },
  };

  /** The deprecated document endpoints (section 4.8). Prefer `datasources` and `datastores.upsert`. */
  readonly documents = {
    /** @deprecated `POST /datastores/upsert/{datastoreId}`: resolves with the new documents' ids. */
    upsert: async (datastoreId: string, body: UpsertDocumentsBody, options: CallOptions = {}): Promise<UpsertAnswer> => {
      checked(checkUpsertDocuments(body));
      const response = await this.#send('POST', `/datastores/upsert/${id(datastoreId)}`, { json: body, signal: options.signal });
      return this.#read(response, UpsertAnswerRecord);
    },

    /** @deprecated `POST /datastores/update/{datastoreId}`: replaces a document's text. */
    update: async (datastoreId: string, body: UpdateDocumentBody, options: CallOptions = {}): Promise<UpdateDocumentAnswer> => {
      checked(checkUpdateDocument(body));
      const response = await this.#send('POST', `/datastores/update/${id(datastoreId)}`, { json: body, signal: options.signal });
      return this.#read(response, UpdateDocumentAnswerRecord);
    },

    /** @deprecated `POST /external/datastores/file-upload/{datastoreId}`. The answer's shape is not documented. */
    uploadFile: async (datastoreId: string, upload: FileUpload, options: CallOptions = {}): Promise<Record<string, unknown>> => {
      const fileName = upload.fileName ?? fileNameOf(upload.file);
      checked(checkFileUploadFields({ fileName, custom_id: upload.custom_id }));
      const form = new FormData();
      if (fileName !== undefined) form.set('fileName', fileName);
      if (upload.custom_id !== undefined) form.set('custom_id', upload.custom_id);
      form.set('file', typedFile(upload.file, fileName), fileName ?? 'file');
      const response = await this.#send('POST', `/external/datastores/file-upload/${id(datastoreId)}`, { form, signal: options.signal });
      return this.#read(response, v.looseObject({}));
    },
  };

  /** Sends one request; resolves with a 2xx response, throws `KagentError` for anything else. */
  async #send(method: string, path: string, init: RequestInit): Promise<Response> {
    const url = new URL(this.#baseUrl + path);
    for (const [name, value] of Object.entries(init.query ?? {})) url.searchParams.set(name, value);
    const headers: Record<string, string> = { ...this.#headers, ...init.headers, Accept: init.accept ?? 'application/json' };
    if (this.#apiKey) headers.Authorization = `Bearer ${this.#apiKey}`;
    let body: BodyInit | undefined;
    if (init.form) body = init.form; // fetch sets the multipart boundary itself
    else if (init.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(init.json);
    }
    let response: Response;
    try {
      response = await this.#fetch(url, { method, headers, body, signal: init.signal, redirect: 'follow' });
    } catch (error) {
      if (init.signal?.aborted) throw error; // the caller's own abort stays an AbortError
      const detail = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
      throw new KagentError({ status: 0, code: 'NETWORK_ERROR', message: this.#redact(`Could not reach ${url.origin}: ${detail}`), cause: error });
    }
    if (!response.ok) throw await errorFromResponse(response, (text) => this.#redact(text));
    return response;
  }

  /** Reads a JSON body and checks its shape. */
  async #read<S extends v.GenericSchema>(response: Response, schema: S): Promise<v.InferOutput<S>> {
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new KagentError({ status: response.status, code: 'INVALID_RESPONSE', message: `The service's answer is not JSON (${response.headers.get('Content-Type') ?? 'no content type'}).` });
    }
    const result = v.safeParse(schema, json);
    if (!result.success) throw invalidResponse(response, `${v.getDotPath(result.issues[0]) ?? '(body)'} ${result.issues[0].message}`);
    return result.output;
  }

  /** Reads a list: the documented `{data, meta}` form, or a bare array. */
  async #readList<S extends v.GenericSchema>(response: Response, record: S): Promise<ListResponse<v.InferOutput<S>>> {
    const schema = v.union([listOf(record), v.array(record)]);
    const list = await this.#read(response, schema);
    if (Array.isArray(list)) return { data: list, meta: { page: 1, limit: list.length, total: list.length } };
    return list as ListResponse<v.InferOutput<S>>;
  }

  #redact(text: string): string {
    return this.#apiKey ? text.split(this.#apiKey).join('[redacted]') : text;
  }

  /** What `console.log(client)` shows: never the key. */
  toJSON(): Record<string, unknown> {
    return { baseUrl: this.#baseUrl, pathPrefix: this.#prefix, apiKey: this.#apiKey ? '[redacted]' : undefined };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `KagentClient ${JSON.stringify(this.toJSON())}`;
  }
}

function invalidResponse(response: Response, problem: string): KagentError {
  return new KagentError({ status: response.status, code: 'INVALID_RESPONSE', message: `The service's answer has an unexpected shape: ${problem}` });
}

/** Throws the refusal of a body that failed its check. */
function checked<T>(result: CheckResult<T>): void {
  if (!result.ok) {
    throw new KagentError({ status: 0, code: 'INVALID_REQUEST', message: `Invalid request: ${describeProblems(result.problems)}`, problems: result.problems });
  }
}

/** An id as one path segment: a `/` or `..` in it can't reach another endpoint. */
function id(value: string): string {
  if (typeof value !== 'string' || value === '') throw new KagentError({ status: 0, code: 'INVALID_REQUEST', message: 'An id must be a non-empty string.' });
  return encodeURIComponent(value).replace(/\./g, '%2E');
}

function fileNameOf(file: Blob): string | undefined {
  return typeof File !== 'undefined' && file instanceof File && file.name ? file.name : undefined;
}

/** The file with its upload type set, or a refusal naming the accepted types. */
function typedFile(file: Blob, fileName: string | undefined): Blob {
  const type = uploadMimeTypeOf(file.type, fileName);
  if (!type) {
    throw new KagentError({
      status: 0,
      code: 'UNSUPPORTED_MIME_TYPE',
      message: `${fileName ?? 'The file'} has type ${file.type || 'unknown'}; the service accepts ${UPLOAD_MIME_TYPES.join(', ')}.`,
    });
  }
  return file.type === type ? file : new Blob([file], { type });
}
