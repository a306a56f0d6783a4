/**
 * `BENCH_BASELINE=<git revision> npm run bench`: the same bench, in the same run, against Till as
 * it was at that revision (the "before" of a change), so a figure is compared side by side rather
 * than with a number measured on another day.
 *
 * The revision is checked out into a temporary git worktree (nothing of this checkout changes)
 * that uses this checkout's node_modules. That is only fair when the baseline's runtime dependencies
 * are installed here at the same versions, so a baseline one of whose `dependencies` this checkout
 * pins otherwise (or lacks) is refused with the difference named; packages added since are fine.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Baseline {
  /** The revision as given, and its short commit id. */
  revision: string;
  commit: string;
  /** The worktree's directory, where its Till is started. */
  dir: string;
  remove: () => Promise<void>;
}

const git = async (cwd: string, ...args: string[]) => (await run('git', args, { cwd })).stdout.trim();

/** The `dependencies` of package.json at a revision, or of the work tree. */
async function runtimeDependencies(root: string, commit?: string): Promise<Record<string, string>> {
  const text = commit ? await git(root, 'show', `${commit}:package.json`) : await readFile(path.join(root, 'package.json'), 'utf8');
  return (JSON.parse(text) as { dependencies?: Record<string, string> }).dependencies ?? {};
}

/**
 * The baseline's packages that this checkout pins otherwise or lacks. A package only this checkout
 * has is no difference: the baseline's code never imports it, so sharing node_modules stays fair.
 */
function differences(baseline: Record<string, string>, current: Record<string, string>): string[] {
  return Object.keys(baseline)
    .sort()
    .filter((name) => baseline[name] !== current[name])
    .map((name) => `${name} ${baseline[name]} → ${current[name] ?? '(none)'}`);
}

/** Checks `revision` out into a temporary worktree sharing `root`'s node_modules. */
export async function checkoutBaseline(root: string, revision: string): Promise<Baseline> {
  const commit = await git(root, 'rev-parse', '--verify', '--short', `${revision}^{commit}`).catch(() => {
    throw new Error(`BENCH_BASELINE=${revision} is not a commit of this repository`);
  });
  const changed = differences(await runtimeDependencies(root, commit), await runtimeDependencies(root));
  if (changed.length > 0) {
    throw new Error(
      `BENCH_BASELINE=${revision}: the server's dependencies differ from this checkout's (${changed.join(', ')}); install them in a checkout of ${commit} and bench there`,
    );
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), `till-bench-baseline-${commit}-`));
  await git(root, 'worktree', 'add', '--detach', dir, commit);
  const remove = async () => {
    await git(root, 'worktree', 'remove', '--force', dir).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    await git(root, 'worktree', 'prune').catch(() => undefined);
  };
  try {
    await symlink(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  } catch (error) {
    await remove();
    throw error;
  }
  return { revision, commit, dir, remove };
}
