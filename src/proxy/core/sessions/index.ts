// Visitor sessions on the proxy's side, the door of this folder: the challenges, tokens and budgets of one proxy
// (sessions.ts, on the settings of settings.ts) and Cloudflare Turnstile's check of a session request (turnstile.ts).
export { Sessions, isRefusal, loadFactor, BLOCK_LOAD_SHARE_PER_MINUTE, CHALLENGE_COST, CHALLENGE_PARTS, CHALLENGE_SECONDS, LOAD_THRESHOLD_PER_MINUTE, type SessionRefusal } from './sessions.js';
export type { SessionSettings } from './settings.js';
export { verifyTurnstile, type TurnstileCheck, type TurnstileVerdict } from './turnstile.js';
export { MAKE_A_SECRET, MIN_SECRET_BITS, secretBits } from './secret-strength.js';
