// `npm start` runs the bundle without `--enable-source-maps`; the logger shows the stacks it writes
// at their places in the sources, from the map beside each bundled file (server/source-stack.ts).
import { copyFile, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../server/log.js';
import { sourceStack } from '../../server/source-stack.js';

let dir: string;
/** The stack of the bundle's error as Node writes it without source maps: the frame at the `throw` in bundle.mjs. */
let bundleStack: string;

const SOURCE = ['// a module that fails', 'export function fail(): never {', "  const why: string = 'on purpose';", '  throw new Error(why);', '}', ''].join(
  '\n',
);

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'till-source-stack-'));
  await writeFile(path.join(dir, 'failing.ts'), SOURCE);
  await build({
    entryPoints: [path.join(dir, 'failing.ts')],
    outfile: path.join(dir, 'bundle.mjs'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    sourcemap: 'linked',
    sourcesContent: false,
    banner: { js: '// padding\n// so that the bundle lines differ from the source lines\n' },
    logLevel: 'silent',
  });
  await copyFile(path.join(dir, 'bundle.mjs.map'), path.join(dir, 'bundle.cjs.map')); // as the server's bundle.cjs has its own
  const lines = (await readFile(path.join(dir, 'bundle.mjs'), 'utf8')).split('\n');
  const line = lines.findIndex((l) => l.includes('throw new Error'));
  const column = lines[line]!.indexOf('throw') + 7; // `new Error`, where V8 places the frame
  bundleStack = [
    'Error: on purpose',
    `    at Module.fail (${pathToFileURL(path.join(dir, 'bundle.mjs')).href}:${line + 1}:${column})`,
    `    at run (${path.join(dir, 'bundle.mjs')}:${line + 1}:${column})`,
    '    at node:internal/main:1:1',
  ].join('\n');
});

describe('stack traces of the bundle', () => {
  it('a frame of a bundled file is shown at its place in the sources, as a URL or a path as it was written; other frames stay as they are', () => {
    expect(bundleStack).not.toContain(':4:9');
    expect(sourceStack(bundleStack).split('\n')).toEqual([
      'Error: on purpose',
      `    at Module.fail (${pathToFileURL(path.join(dir, 'failing.ts')).href}:4:9)`,
      `    at run (${path.join(dir, 'failing.ts')}:4:9)`,
      '    at node:internal/main:1:1',
    ]);
    const commonJs = bundleStack.replaceAll('bundle.mjs', 'bundle.cjs');
    expect(sourceStack(commonJs)).toBe(sourceStack(bundleStack));
    const elsewhere = '    at run (/nowhere/without-a-map.js:10:5)\n    at node:internal/main:1:1';
    expect(sourceStack(elsewhere)).toBe(elsewhere);
  });

  it('the logger writes an error with its stack at the places in the sources', () => {
    const lines: string[] = [];
    const err = Object.assign(new Error('on purpose'), { stack: bundleStack });
    createLogger('error', { write: (line: string) => void lines.push(line) }).error({ err }, 'it failed');
    const logged = JSON.parse(lines[0]!) as { err: { message: string; stack: string } };
    expect(logged.err.message).toBe('on purpose');
    expect(logged.err.stack).toContain(`${path.join(dir, 'failing.ts')}:4:9`);
    expect(logged.err.stack).not.toContain('bundle.mjs');
  });
});
