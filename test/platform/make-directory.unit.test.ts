// makeDirectory (server/shared/make-directory.ts): `mkdir -p` that fails with the folder's name
// where Node's recursive mkdir never settles (a file system that refuses new folders, like /proc).
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDirectory } from '../../server/shared/make-directory.js';

const made: string[] = [];
const tempDir = async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'till-mkdir-'));
  made.push(dir);
  return dir;
};
afterAll(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));

describe('makeDirectory', () => {
  it('makes a folder and the missing folders above it, and leaves an existing one as it is', async () => {
    const base = await tempDir();
    const dir = path.join(base, 'a', 'b', 'c');
    await makeDirectory(dir);
    expect((await stat(dir)).isDirectory()).toBe(true);
    await writeFile(path.join(dir, 'kept.txt'), 'kept');
    await makeDirectory(dir);
    expect(existsSync(path.join(dir, 'kept.txt'))).toBe(true);
  });

  it('refuses a path that is a file, or lies under one', async () => {
    const base = await tempDir();
    const file = path.join(base, 'file');
    await writeFile(file, 'not a folder');
    await expect(makeDirectory(file)).rejects.toThrow(`cannot make the folder ${file}: ${file} is a file`);
    await expect(makeDirectory(path.join(file, 'below'))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  // Node's mkdir(dir, { recursive: true }) loops forever here; this test would time out with it.
  it.runIf(existsSync('/proc/self'))('fails, naming the folder, where the file system accepts no new folder (/proc)', async () => {
    await expect(makeDirectory('/proc/till-data/pglite')).rejects.toThrow('cannot make the folder /proc/till-data/pglite: /proc does not accept new folders');
  });
});
