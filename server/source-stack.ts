// Stack traces as the sources tell them. `npm start` runs the bundle (dist/server/bundle.cjs) without
// `--enable-source-maps`: with it, Node read and indexed the 3.6 MB map of the bundle, and the maps
// of the packages beside it, at every start (a quarter of a second of a restart). The logger maps
// the stacks it writes instead, reading a file's map the first time one of its frames is logged.
import { readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Maps by generated file, null where there is none; read once each. */
const maps = new Map<string, SourceMap | null>();

/** The map a file links with `//# sourceMappingURL=`, read from `<file>.map` beside it; null without one. */
function mapOf(file: string): SourceMap | null {
  let map = maps.get(file);
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')) as SourceMapPayload);
    } catch {
      map = null;
    }
    maps.set(file, map);
  }
  return map;
}

/** A frame's place: a file URL or an absolute path to a .js, .mjs or .cjs file, its line and its column. */
const FRAME = /(file:\/\/\/[^\s():]+\.[cm]?js|\/[^\s():]+\.[cm]?js):(\d+):(\d+)/g;

/** The place in the sources of a frame of a bundled file, or the frame as it was. */
function sourcePlace(frame: string, where: string, line: string, column: string): string {
  const file = where.startsWith('file:') ? fileURLToPath(where) : where;
  const entry = mapOf(file)?.findEntry(Number(line) - 1, Number(column) - 1);
  if (!entry || !('originalSource' in entry) || !entry.originalSource) return frame;
  const source = entry.originalSource.startsWith('file:') ? fileURLToPath(entry.originalSource) : path.resolve(path.dirname(file), entry.originalSource);
  const shown = where.startsWith('file:') ? pathToFileURL(source).href : source;
  return `${shown}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
}

/** `stack` with each frame of a file that has a source map beside it shown at its place in the sources. */
export function sourceStack(stack: string): string {
  return stack.replace(FRAME, sourcePlace);
}
