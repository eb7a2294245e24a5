// npm and npx start a command through a shell: npm -> `sh -c "…"` -> node. A
// SIGINT or SIGTERM to npm reaches the shell, which ends without passing it on,
// and a SIGKILL reaches nobody, so node would run on, orphaned, holding its
// port. Nothing tells a process its parent or grandparent ended (no pipe from
// npm reaches it), so it looks twice a second.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const LOOK_EVERY_MS = 500;

/**
 * When this process was started by an npm script or npx, calls `gone` once if
 * the shell npm started or npm itself ends. Returns a function that stops
 * looking. Outside npm it does nothing: a command that outlives the shell that
 * started it (`kagent-proxy &`, a process manager) is meant to.
 */
export function endWithLauncher(gone: () => void, env: NodeJS.ProcessEnv = process.env): () => void {
  if (!env.npm_lifecycle_event) return () => {};
  const parent = process.ppid;
  const npm = parentOf(parent);
  const timer = setInterval(() => {
    if (process.ppid === parent && (npm === undefined || isRunning(npm))) return;
    clearInterval(timer);
    gone();
  }, LOOK_EVERY_MS);
  // Looking must not keep an otherwise finished process alive.
  timer.unref();
  return () => clearInterval(timer);
}

/** The parent of `pid` (Linux: /proc; macOS and other Unixes: ps), or undefined when unknown or init. */
function parentOf(pid: number): number | undefined {
  let ppid: number;
  try {
    // /proc/<pid>/stat: "pid (command) state ppid …"; the command may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    try {
      ppid = Number(execFileSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    } catch {
      return undefined;
    }
  }
  return Number.isInteger(ppid) && ppid > 1 ? ppid : undefined;
}

function isRunning(pid: number): boolean {
  try {
    // A process that ended but whose parent has not collected it yet (a zombie) still answers signal 0.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    // No /proc (macOS), or no such process.
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
