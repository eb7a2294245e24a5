// Visitor sessions on the chat's side, the door of this folder for the rest of the answer engine: gate.ts learns
// whether a proxy asks for sessions and fetches the keeper (visitor-session.ts, with solver.ts and human-check.ts) as a
// chunk of its own only then. Only the gate's code is exported here: a static export of the keeper's would bring it
// into the second part, which every visitor fetches.
export { joinSessions, sessionFor, sessionStorageKey, solvedStorageKey, type KeeperMissing } from './gate.js';
export type { SessionTicket, VisitorSession } from './visitor-session.js';
