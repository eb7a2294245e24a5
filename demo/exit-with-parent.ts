// Preloaded (`--import`) into every process `npm start` spawns: its stdin is
// a pipe from the parent, which the system closes however the parent ends
// (Ctrl-C, SIGTERM, or SIGKILL that no handler sees). When it closes, this
// process ends too, so no child keeps a port after its parent is gone.
process.stdin.on('end', () => process.kill(process.pid, 'SIGTERM'));
process.stdin.on('error', () => process.kill(process.pid, 'SIGTERM'));
process.stdin.resume();
// Reading stdin must not keep an otherwise finished process alive.
(process.stdin as { unref?: () => void }).unref?.();
