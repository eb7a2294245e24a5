// What the session keeper's chunk uses of the second part, handed to it by the gate (as DOMPurify's chunk is handed
// its policy) so that it imports nothing from that chunk: an import between them would make the second part, which
// every visitor fetches, export its inner names, wrap its own exports in a namespace object and keep all of
// SESSION_ERROR_CODES (0.3 KB gzipped). A module of its own, so that the gate and the keeper need not import each other.
import type { SESSION_ROUTES } from '../../../protocol/sessions/index.js';
import type { chunkImport } from '../../chunk-import.js';
import type { inUse } from '../chat-in-use.js';
import type { failureFromNetworkError, failureFromResponse } from '../failures.js';
import type { nextTask } from '../next-task.js';
import type { trustedScriptUrl } from '../trusted-types.js';

export interface KeeperNeeds {
  readFailure: typeof failureFromResponse;
  networkFailure: typeof failureFromNetworkError;
  /** The key under which the tab keeps what it learned of a proxy's sessions. */
  storageKey: (base: string) => string;
  /** The key of a challenge solved in idle time and not yet spent. */
  solvedKey: (base: string) => string;
  nextTask: typeof nextTask;
  trustedScriptUrl: typeof trustedScriptUrl;
  routes: typeof SESSION_ROUTES;
  inUse: typeof inUse;
  /** For the human check's chunk. */
  chunkImport: typeof chunkImport;
}
