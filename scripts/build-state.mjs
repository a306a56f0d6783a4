// Whether dist/ is older than the sources it is built from: what `npm start` (scripts/start.mjs)
// and `node scripts/build.mjs --if-stale` check before building.
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const out = path.join(root, 'dist');
/** Written last by a build of the server: its time is the build's. */
const stamp = path.join(out, 'server', 'main.js');

/** Every TypeScript source of the server. */
export async function sources() {
  const entries = await readdir(path.join(root, 'server'), { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')).map((e) => path.join(e.parentPath, e.name));
}

/** Whether dist/ is missing, its template is missing, or a source or the lockfile changed after it was built. */
export async function stale(files) {
  const built = await stat(stamp).then(
    (s) => s.mtimeMs,
    () => 0,
  );
  if (built === 0) return true;
  if (!(await stat(path.join(out, 'pglite-template.json')).catch(() => undefined))) return true;
  const times = await Promise.all([...files, path.join(root, 'package-lock.json')].map((file) => stat(file).then((s) => s.mtimeMs)));
  return times.some((time) => time > built);
}
