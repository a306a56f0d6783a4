// Whether dist/ is older than the sources it is built from: what `npm start` (scripts/start.mjs)
// and `node scripts/build.mjs --if-stale` check before building. Synchronous: every `npm start`
// pays for it, and some 480 stats took 25 ms through promises against 10 ms one after another.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const out = path.join(root, 'dist');
/** Written last by a build of the server: its time is the build's. */
const stamp = path.join(out, 'server', 'main.js');

/** Every TypeScript source of the server. */
export function sources() {
  const entries = readdirSync(path.join(root, 'server'), { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')).map((e) => path.join(e.parentPath, e.name));
}

/** A file's modification time, or 0 when it is not there. */
const modified = (file) => statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0;

/** Whether dist/ is missing, its template is missing, or a source or the lockfile changed after it was built. */
export function stale(files) {
  const built = modified(stamp);
  if (built === 0 || modified(path.join(out, 'pglite-template.json')) === 0) return true;
  return [...files, path.join(root, 'package-lock.json')].some((file) => modified(file) > built);
}
