// Visitor sessions, the proxy's own contract with the pages it serves: the door of this folder.
// contract.ts holds the routes, headers, error codes and records; solve.ts the challenge's solver, which needs
// only contract.ts's types, so code that only needs the names (a page's request code) does not bring it along.
export * from './contract.js';
export { needsNewChallenge, solveSessionChallenge, solveSessionChallenges, solves, webCryptoPbkdf2, type SolveOptions } from './solve.js';
