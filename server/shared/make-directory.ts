// Making a folder and the folders above it, as `mkdir -p` does, failing where Node's own would hang.
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';

const codeOf = (err: unknown) => (err as NodeJS.ErrnoException | undefined)?.code;

/**
 * Makes `dir` and every missing folder above it; an existing folder is left as it is. Node's
 * `mkdir(dir, { recursive: true })` never settles where a file system refuses a new folder with
 * ENOENT although its parent exists (`/proc`, `/sys`): it makes the parent again, forever, at 100%
 * CPU. A start with `TILL_DATA_DIR=/proc/till` hung that way. Here each missing folder is made on
 * its own, from the top, and such a refusal is an error that names the folder.
 */
export async function makeDirectory(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let folder = path.resolve(dir); ; folder = path.dirname(folder)) {
    const found = await stat(folder).catch((err: unknown) => {
      if (codeOf(err) === 'ENOENT') return undefined;
      throw err;
    });
    if (found?.isDirectory()) break;
    if (found) throw new Error(`cannot make the folder ${dir}: ${folder} is a file`);
    missing.unshift(folder);
    if (path.dirname(folder) === folder) break;
  }
  for (const folder of missing) {
    try {
      await mkdir(folder);
    } catch (err) {
      if (codeOf(err) === 'EEXIST') continue; // made meanwhile by another process
      if (codeOf(err) === 'ENOENT') throw new Error(`cannot make the folder ${dir}: ${path.dirname(folder)} does not accept new folders`, { cause: err });
      throw err;
    }
  }
}
