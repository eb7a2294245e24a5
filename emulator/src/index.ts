/**
 * The emulator: a local stand-in of the Knowledge-Agent Service with the whole
 * interface, real ingestion, search and streamed answers. See docs/emulator.md.
 */
export { createEmulator, type Emulator, type DemoInfo, type CreatedKey, type CreateKeyOptions, type KeyInfo } from './emulator.js';
export { startEmulator, type RunningEmulator, type StartOptions } from './server.js';
export type { EmulatorOptions } from './options.js';
export type { Plan } from './store/records.js';
