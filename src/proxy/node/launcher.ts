// npm and npx start a command through a shell: npm -> `sh -c "…"` -> node. A
// SIGTERM to npm reaches the shell, which ends without passing it on, and a
// SIGKILL reaches nobody, so node would run on, orphaned, holding its port.
// Nothing tells a process its parent or grandparent ended (no pipe from npm
// reaches it), so it looks twice a second.
//
// A SIGINT to npm's process alone (a process manager's or an editor's stop) is
// worse: npm passes it to the shell, and Debian's and Ubuntu's sh (dash) keeps
// it until its command ends, so nothing would ever end. Waiting on its command,
// that shell sleeps and wakes only for a signal: on Linux its count of
// voluntary context switches (/proc/<pid>/status) moves when one arrives, and
// that is the one trace the SIGINT leaves.
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
  const shell = waitingShell(parent);
  let wakes = shell === undefined ? undefined : wakesOf(shell);
  // A terminal's Ctrl-Z and `fg` stop and continue the shell too, which wakes it: that is not a signal to end.
  let continued = false;
  const onContinue = () => (continued = true);
  if (wakes !== undefined) process.on('SIGCONT', onContinue);
  const stop = () => {
    clearInterval(timer);
    process.off('SIGCONT', onContinue);
  };
  const end = () => {
    stop();
    gone();
  };
  const timer = setInterval(() => {
    if (process.ppid !== parent || (npm !== undefined && !isRunning(npm))) return end();
    if (wakes === undefined || wakesOf(shell!) === wakes) return;
    // Let a SIGCONT that arrived with the wake be heard first (signals are read after timers in a turn).
    setImmediate(() => {
      if (!continued) return end();
      continued = false;
      wakes = wakesOf(shell!);
    });
  }, LOOK_EVERY_MS);
  // Looking must not keep an otherwise finished process alive.
  timer.unref();
  return stop;
}

/** `pid` when it is a shell (not npm) that catches SIGINT while it waits on its command, as dash does; Linux only. */
function waitingShell(pid: number): number | undefined {
  try {
    const name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    if (!/^(sh|dash|ash|busybox|bash|ksh|mksh|zsh)$/.test(name)) return undefined;
    const caught = /\nSigCgt:\s*([0-9a-f]+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    // A mask of caught signals in hex, signal n at bit n - 1: SIGINT (2) is the last digit's second bit.
    return caught !== undefined && (parseInt(caught.slice(-1), 16) & 2) !== 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** How many times `pid` has gone to sleep and been woken, or undefined when it cannot be read. */
function wakesOf(pid: number): number | undefined {
  try {
    const count = /\nvoluntary_ctxt_switches:\s*(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return count === undefined ? undefined : Number(count);
  } catch {
    return undefined;
  }
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
