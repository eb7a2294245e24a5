// Part of the answer engine, as a Worker of its own (a chunk of its own where a bundler
// builds the chat from npm; the script-tag build starts the session keeper's own chunk
// instead): solves a visitor session's challenge off the page's main thread. Each worker
// tries the counters `start`, `start + step`... and posts its solution, or null.
import { answerInWorker } from './solver.js';

addEventListener('message', answerInWorker);
