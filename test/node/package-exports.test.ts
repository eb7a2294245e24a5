// The public surface of both packages: every entry of each package.json's `exports`, and the
// names (values and types) each one exports, read by the TypeScript compiler from the source the
// entry is built from. Moving files behind an entry must leave this list as it is; a change here
// is a change for users, and shows in review.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import ts from 'typescript';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** `kagent-chat/protocol`, which `kagent-chat/client` also exports whole. */
const PROTOCOL = [
  'AGENT_QUERY_FIELDS', 'Agent', 'AgentCreateBody', 'AgentQueryAnswer', 'AgentQueryAnswerRecord', 'AgentQueryBody',
  'AgentRecord', 'AgentStreamDecoder', 'AgentStreamEvent', 'AgentUpdateBody', 'AnswerEvent', 'ChallengeAnswer',
  'ChallengeAnswerRecord', 'CheckOptions', 'CheckResult', 'Conversation', 'ConversationRecord', 'ConversationsQuery',
  'DATASOURCE_STATUSES', 'DATASOURCE_TYPES', 'DATASTORE_TYPES', 'DONE_EVENT', 'Datasource', 'DatasourceConfig',
  'DatasourceRecord', 'DatasourceStatus', 'DatasourceType', 'Datastore', 'DatastoreCreateBody', 'DatastoreFragment',
  'DatastoreFragmentRecord', 'DatastoreQueryBody', 'DatastoreRecord', 'DatastoreType', 'DatastoreUpdateBody',
  'DoneEvent', 'ERROR_CODES', 'EVENT_STREAM_HEADERS', 'EmptyBody', 'ErrorBody', 'ErrorBodyRecord', 'FAMILY_WORDS',
  'FEATURES_MAX_AGE_SECONDS', 'FEATURES_ROUTE', 'FEEDBACK_COMMENT_MAX', 'FEEDBACK_ROUTE', 'FeedbackRating',
  'FeedbackRequest', 'FieldProblem', 'FileDatasourceFields', 'FileUploadFields', 'INCOMPLETE_STREAM', 'INSIGHTS_ROUTE',
  'InsightsDeletion', 'InsightsReport', 'KnownModelName', 'ListQuery', 'ListResponse', 'MAX_CHALLENGE_PARTS',
  'MAX_QUERY_ID_LENGTH', 'MODEL_NAMES', 'MODEL_SUFFIXES', 'ModelName', 'NO_FEATURES', 'ORIGIN_NOT_ALLOWED',
  'PROMPT_TYPES', 'PlainErrorBody', 'PromptType', 'ProxyFeatures', 'QUERY_ID_FIELDS', 'QUESTIONS_LEFT_HEADER',
  'QUESTION_ID_HEADER', 'QueryIdField', 'QuestionOutcome', 'QuestionRecord', 'SESSION_ERROR_CODES', 'SESSION_HEADER',
  'SESSION_ROUTES', 'SessionChallenge', 'SessionChallengeRecord', 'SessionErrorCode', 'SessionGrant',
  'SessionGrantRecord', 'SessionRequest', 'SessionRequestBody', 'SessionSolution', 'SessionSolutionRecord',
  'SolveOptions', 'Source', 'SourceRecord', 'StreamErrorEvent', 'StreamMessage', 'StrictAgentCreateBody',
  'StrictAgentQueryBody', 'StrictAgentUpdateBody', 'UPLOAD_EXTENSIONS', 'UPLOAD_MIME_TYPES', 'UpdateDocumentAnswer',
  'UpdateDocumentAnswerRecord', 'UpdateDocumentBody', 'UploadMimeType', 'UpsertAnswer', 'UpsertAnswerRecord',
  'UpsertDocumentsBody', 'Usage', 'V1UpsertBody', 'VISIBILITIES', 'Visibility', 'WebDatasourceBody', 'answerEvent',
  'checkAgentCreate', 'checkAgentQuery', 'checkAgentUpdate', 'checkConversationsQuery', 'checkDatastoreCreate',
  'checkDatastoreQuery', 'checkDatastoreUpdate', 'checkEmptyBody', 'checkFeedbackRequest', 'checkFileDatasourceFields',
  'checkFileUploadFields', 'checkUpdateDocument', 'checkUpsertDocuments', 'checkV1Upsert', 'checkWebDatasource',
  'checkWith', 'decodeFragment', 'describeProblems', 'endpointResponseEvent', 'errorBody', 'errorCodeForStatus',
  'errorLine', 'isKnownModelName', 'isQuestionId', 'isUploadMimeType', 'isValidQueryId', 'jsonObject', 'listOf',
  'needsNewChallenge', 'needsNewSession', 'oneOf', 'originNotAllowedMessage', 'parseRetryAfter', 'queryIdFieldsNamed',
  'queryIdRule', 'readAgentQueryAnswer', 'readAgentStream', 'readErrorBody', 'readProxyFeatures',
  'solveSessionChallenge', 'solveSessionChallenges', 'solves', 'textList', 'toolCallEvent', 'uploadMimeTypeOf',
  'webCryptoPbkdf2',
];

const EXPECTED: Record<string, string[]> = {
  'kagent-chat': [
    'AnswerEngine', 'AskOptions', 'AskOutcome', 'ChatFailure', 'ChatStrings', 'ChatStringsOverride', 'Citation', 'ConversationStore',
    'ENGLISH', 'FAILURE_KINDS', 'FailureKind', 'IncrementalMarkdown', 'KagentAnswerDetail', 'KagentChat', 'KagentChatAttributes',
    'KagentChatEventMap', 'KagentChatListeners', 'KagentChatProperties', 'KagentErrorDetail', 'KagentFeedbackDetail', 'KagentSendDetail', 'LoadingMode',
    'MAX_STORED_CHARS', 'MAX_STORED_TURNS', 'RenderStats', 'STORE_VERSION', 'StoredConversation', 'Turn', 'TurnFeedback', 'TurnState', 'askAgent',
    'citationsFrom', 'formatSeconds', 'loadAnswerEngine', 'queryUrl', 'renderMarkdown', 'renderMarkdownSoFar', 'withStrings',
  ],
  'kagent-chat/protocol': PROTOCOL,
  'kagent-chat/client': [...PROTOCOL, 'AgentAnswerStream', 'CallOptions', 'FileUpload', 'KagentClient', 'KagentClientOptions', 'KagentError', 'LocalErrorCode', 'StartSessionOptions'].sort(),
  'kagent-chat/proxy': [
    'DEFAULTS', 'Env', 'HitOptions', 'MemoryRateLimitStore', 'ProxyConfigError', 'ProxyHandler', 'ProxyLogEntry', 'ProxyLogger', 'ProxyOptions',
    'ProxyRequestContext', 'RateLimit', 'RateLimitCount', 'RateLimitStore', 'RedisEval', 'RedisRateLimitStore',
    'RedisRateLimitStoreOptions', 'StoreFullError', 'StoreLog', 'consoleLogger', 'createProxy', 'parseRateLimit', 'proxyOptionsFromEnv',
  ],
  'kagent-chat/proxy/node': [
    'ConnectionLimits', 'NodeFetchOptions', 'RunningProxy', 'ServeProxyOptions', 'createNodeFetch', 'createProxy', 'serveOptionsFromEnv',
    'serveProxy',
  ],
  'kagent-chat/proxy/cloudflare': [
    'createWorker', 'default', 'WorkerContext',
  ],
  'kagent-chat/proxy/vercel': [
    'createVercelHandler',
  ],
  'kagent-chat/proxy/netlify': [
    'createNetlifyHandler',
  ],
  'kagent-chat/proxy/deno': [
    'createDenoHandler', 'default',
  ],
  'kagent-chat/proxy/bun': [
    'createBunHandler',
  ],
  'kagent-chat/proxy/redis': [
    'RedisClientMissingError', 'connectRedisRateLimitStore', 'safeAddress',
  ],
  'kagent-emulator': [
    'CreateKeyOptions', 'CreatedKey', 'DemoInfo', 'Emulator', 'EmulatorOptions', 'KeyInfo', 'Plan', 'RunningEmulator', 'StartOptions',
    'createEmulator', 'startEmulator',
  ],
};

interface ExportEntry {
  types: string;
  default: string;
}

/** The source file an entry is built from: `./dist/x/y.js` of package `dir` is `dir/src/x/y.ts`. */
function sourceOf(dir: string, entry: ExportEntry): string {
  const built = entry.default;
  assert.match(built, /^\.\/dist\/.+\.js$/, `${built} is a module in dist/`);
  assert.equal(entry.types, built.replace(/\.js$/, '.d.ts'), `the types of ${built} sit beside it`);
  return join(root, dir, built.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'));
}

function entriesOf(dir: string): Map<string, string> {
  const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as { name: string; exports: Record<string, ExportEntry | string> };
  const entries = new Map<string, string>();
  for (const [subpath, entry] of Object.entries(manifest.exports)) {
    if (typeof entry === 'string') continue; // ./package.json
    entries.set(subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`, sourceOf(dir, entry));
  }
  return entries;
}

test('each package entry exports exactly the names users rely on', () => {
  const entries = new Map([...entriesOf('.'), ...entriesOf('emulator')]);
  const program = ts.createProgram([...entries.values()], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    experimentalDecorators: true,
    skipLibCheck: true,
    noEmit: true,
    paths: { 'kagent-chat/protocol': [join(root, 'src/protocol/index.ts')] },
  });
  const checker = program.getTypeChecker();
  const actual: Record<string, string[]> = {};
  for (const [name, file] of entries) {
    const source = program.getSourceFile(file);
    assert.ok(source, `${name}: ${file} exists`);
    const symbol = checker.getSymbolAtLocation(source);
    assert.ok(symbol, `${name}: ${file} is a module`);
    actual[name] = checker.getExportsOfModule(symbol).map((s) => s.name).sort();
  }
  assert.deepEqual(Object.keys(actual), Object.keys(EXPECTED), 'the entries of both packages');
  for (const [entry, names] of Object.entries(EXPECTED)) {
    const added = actual[entry]!.filter((name) => !names.includes(name));
    const removed = names.filter((name) => !actual[entry]!.includes(name));
    assert.deepEqual({ added, removed }, { added: [], removed: [] }, `the names ${entry} exports`);
  }
});
