// The shell and SDK samples of the guides (README.md, CONTRIBUTING.md, docs/**/*.md), as the tests
// run them. A sample is a fenced block whose info string is `sh` or `ts` plus a mark:
//
//   ```sh test        run against a fresh server by samples.test.ts
//   ```sh no-test     shown only (it starts a server, needs Docker, runs the whole suite…)
//
// The `test` samples run in this order (the README, then the guides by name) on one server, as a
// reader following the guides would. In a `test` sample, a comment line `# → PATTERN` (`// → PATTERN` in TypeScript) is what the lines
// since the last such comment print: the whole output, spaces collapsed, where `…` stands for
// anything. A long one goes on over the comment lines right after it that start `#   ` (`//   `),
// three spaces, joined without a space (a JSON answer split where a reader's page is narrow).
// A guide that drifts from what Till answers fails `npm test`.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const SAMPLE_LANGUAGES = ['sh', 'ts'] as const;
/** Languages a reader runs: a block in one of them must say whether it is tested. */
const RUNNABLE = new Set(['sh', 'bash', 'shell', 'console', 'ts', 'typescript', 'js', 'javascript']);

export interface Sample {
  /** Where it is: the Markdown file (relative to the root) and the line of its opening fence. */
  file: string;
  line: number;
  lang: string;
  mark: 'test' | 'no-test' | undefined;
  code: string;
}

/** The Markdown files with samples: the README, CONTRIBUTING.md and every file under docs/. */
export function guideFiles(root: string): string[] {
  const docs = (dir: string): string[] =>
    readdirSync(path.join(root, dir), { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? docs(path.join(dir, e.name)) : e.name.endsWith('.md') ? [path.join(dir, e.name)] : []))
      .sort();
  return ['README.md', 'CONTRIBUTING.md', ...docs('docs')];
}

/** The fenced blocks of one Markdown file in a runnable language, with their marks. */
export function samplesIn(root: string, file: string): Sample[] {
  const lines = readFileSync(path.join(root, file), 'utf8').split('\n');
  const samples: Sample[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*```(\S*)\s*(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && l.trimStart().startsWith('```'));
    const [lang, info] = [open[1]!, open[2]!.trim()];
    if (RUNNABLE.has(lang)) {
      const mark = info === 'test' ? 'test' : info === 'no-test' ? 'no-test' : undefined;
      samples.push({ file, line: i + 1, lang, mark, code: lines.slice(i + 1, end).join('\n') });
    }
    i = end;
  }
  return samples;
}

const OUTPUT = /^\s*(?:#|\/\/) → (.*)$/;
const CONTINUED = /^\s*(?:#|\/\/) {3}(\S.*)$/;
export const MARK = '__TILL_SAMPLE_OUTPUT__';

/** The sample's code with each `→` comment replaced by a line printing MARK, and the patterns in order. */
export function instrument(sample: Sample): { code: string; expected: string[] } {
  const expected: string[] = [];
  let continues = false;
  const code = sample.code
    .split('\n')
    .map((line) => {
      const more = continues ? CONTINUED.exec(line) : null;
      if (more) expected[expected.length - 1] += more[1]!;
      const m = more ? null : OUTPUT.exec(line);
      continues = Boolean(more ?? m);
      if (!m) return line;
      expected.push(m[1]!);
      return sample.lang === 'sh' ? `printf '\\n${MARK}\\n'` : `console.log('\\n${MARK}');`;
    })
    .join('\n');
  return { code, expected };
}

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Whether `output` is what `pattern` shows: all of it, spaces collapsed, `…` standing for anything. */
export function shows(output: string, pattern: string): boolean {
  const parts = collapse(pattern)
    .split('…')
    .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[\\s\\S]*?')}$`).test(collapse(output));
}
