// One process at a time on an embedded (PGlite) database. PGlite is PostgreSQL running inside the
// process that opened it: a second process that opens the same data directory neither sees the
// first one's writes nor keeps its own (whichever writes last wins, silently). So whoever opens a
// PGlite directory (the server, the merchant command) first takes `till.lock` in it, which says
// who holds it; a second opener is refused with that holder's name, and a lock whose process has
// died is taken over.
import { randomUUID } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { link, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { makeDirectory } from '../shared/make-directory.js';

/** What a lock file holds: who has the database open. */
export interface LockHolder {
  /** Who it is, in words: "the server", "the merchant command". */
  role: string;
  pid: number;
  hostname: string;
  /** When it took the lock (ISO 8601). */
  startedAt: string;
  /** The kernel's start time of that process (Linux), so a reused pid is not mistaken for the holder. */
  processStart?: string;
}

/** A second opener, refused: `holder` has the database open. Nothing was read or written. */
export class DatabaseLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly lockFile: string,
    readonly holder: LockHolder,
  ) {
    const where = holder.hostname === hostname() ? '' : ` on host ${holder.hostname}`;
    const who = holder.pid === process.pid ? `this process (pid ${holder.pid})` : `${holder.role} (pid ${holder.pid}${where}, started ${holder.startedAt})`;
    const stale =
      holder.hostname === hostname()
        ? ''
        : ` Its process cannot be checked from this host: if no Till process runs there any more, delete ${displayPath(lockFile)}.`;
    super(
      `${who} holds the embedded database ${displayPath(dir)}: PGlite admits one process at a time. ` +
        `Stop that process first, or set DATABASE_URL to use a PostgreSQL server, which many processes can share.${stale}`,
    );
    this.name = 'DatabaseLockedError';
  }
}

export interface PgliteLock {
  readonly file: string;
  /** Removes the lock file, if it is still this process's. */
  release(): Promise<void>;
}

const LOCK_FILE = 'till.lock';
/** The locks this process holds, by file; the exit hook removes whatever is left. */
const held = new Map<string, LockHolder>();
let exitHookInstalled = false;

/** `./.data/pglite` when under the working directory, else the absolute path. */
export function displayPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? `./${relative}` : file;
}

/** The start time of a process as the kernel counts it (field 22 of /proc/<pid>/stat), or undefined off Linux. */
function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function isAlive(holder: LockHolder, file: string): boolean {
  // Another host's processes cannot be checked from here: assume it runs (the message says what to do).
  if (holder.hostname !== hostname()) return true;
  // A lock with this very pid is ours only if this process took it; otherwise it is a previous
  // incarnation's (a container restarted with the same pid 1, say).
  if (holder.pid === process.pid) return held.has(file);
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    // EPERM: it exists but belongs to another user, so it is alive.
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const start = processStart(holder.pid);
  return !(start && holder.processStart && start !== holder.processStart);
}

function parse(text: string): LockHolder | undefined {
  try {
    const value = JSON.parse(text) as LockHolder;
    return Number.isInteger(value.pid) && typeof value.hostname === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The holder named in `file`; undefined when there is no file; 'unreadable' when it holds no holder. */
async function readHolder(file: string): Promise<LockHolder | 'unreadable' | undefined> {
  try {
    return parse(await readFile(file, 'utf8')) ?? 'unreadable';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

const sameHolder = (a: LockHolder | 'unreadable' | undefined, b: LockHolder | 'unreadable') =>
  a === b || (typeof a === 'object' && typeof b === 'object' && a.pid === b.pid && a.startedAt === b.startedAt && a.hostname === b.hostname);

/**
 * Moves a dead holder's lock aside. It is first renamed (atomic) and then checked: if another
 * process took the stale lock over in the meantime, the renamed file is that process's fresh
 * lock, and it is put back.
 */
async function removeStale(file: string, stale: LockHolder | 'unreadable'): Promise<void> {
  const aside = `${file}.stale-${process.pid}-${randomUUID()}`;
  try {
    await rename(file, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    if (!sameHolder(await readHolder(aside), stale)) await link(aside, file).catch(() => {});
  } finally {
    await rm(aside, { force: true });
  }
}

function installExitHook() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // process.exit() and an uncaught error skip close(): remove this process's locks on the way out.
  // (A SIGKILL leaves the file behind; the next opener sees its process is gone and takes it over.)
  process.on('exit', () => {
    for (const [file, mine] of held) {
      try {
        if (sameHolder(parse(readFileSync(file, 'utf8')), mine)) unlinkSync(file);
      } catch {
        // Already gone.
      }
    }
    held.clear();
  });
}

/**
 * Takes the lock of the PGlite directory `dir` for this process, described as `role`; throws
 * {@link DatabaseLockedError} when a live process holds it.
 */
export async function lockPgliteDirectory(dir: string, role: string): Promise<PgliteLock> {
  await makeDirectory(dir);
  const file = path.join(dir, LOCK_FILE);
  const mine: LockHolder = { role, pid: process.pid, hostname: hostname(), startedAt: new Date().toISOString(), processStart: processStart(process.pid) };
  for (let attempt = 0; attempt < 20; attempt++) {
    if (await create(file, `${JSON.stringify(mine)}\n`)) {
      held.set(file, mine);
      installExitHook();
      return { file, release: () => release(file, mine) };
    }
    let holder = await readHolder(file);
    if (holder === 'unreadable') {
      // Only a file system without hard links writes the lock in place: give its writer a moment.
      await new Promise((resolve) => setTimeout(resolve, 100));
      holder = await readHolder(file);
    }
    if (holder === undefined) continue; // released meanwhile: try again
    if (holder !== 'unreadable' && isAlive(holder, file)) throw new DatabaseLockedError(dir, file, holder);
    await removeStale(file, holder);
  }
  throw new Error(`Could not take ${displayPath(file)}: other processes keep taking it. Is something starting Till in a loop?`);
}

/** Creates `file` with `content` unless it exists (then false). */
async function create(file: string, content: string): Promise<boolean> {
  // Written whole under another name, then linked into place: the lock never exists half-written.
  const draft = `${file}.new-${process.pid}-${randomUUID()}`;
  await writeFile(draft, content, { flag: 'wx' });
  try {
    await link(draft, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw err;
  } finally {
    await rm(draft, { force: true });
  }
  // No hard links here (some mounted volumes): exclusive create, then write.
  try {
    await writeFile(file, content, { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

async function release(file: string, mine: LockHolder): Promise<void> {
  if (held.get(file) !== mine) return;
  held.delete(file);
  if (sameHolder(await readHolder(file), mine)) await rm(file, { force: true });
}
