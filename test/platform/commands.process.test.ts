// Every command answers --help with exit 0 and its flags; an unknown flag names itself and exits 2.
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { root } from '../support/processes.js';

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `scripts/<file>` (or `conformance/index.ts`) as npm runs it, with tsx; answers its exit status and output. */
function runCommand(file: string, args: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', file, ...args], { cwd: root, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Each command, its script, and flags its --help must list. */
const COMMANDS = [
  { name: 'merchant', file: 'scripts/merchant.ts', flags: ['create', '--name', '--currency', '--json', 'roles list', 'keys revoke'] },
  { name: 'listen', file: 'scripts/listen.ts', flags: ['--forward-to', '--events', '--base-url', '--api-key', '--secret'] },
  { name: 'operations', file: 'scripts/operations.ts', flags: ['--json'] },
  { name: 'bench', file: 'scripts/bench.ts', flags: ['BENCH_DURATION', 'BENCH_CONNECTIONS', 'BENCH_ONLY', 'BENCH_BASELINE'] },
  { name: 'docs:look', file: 'scripts/docs-look.mjs', flags: ['--out', '--widths', '--no-shots'] },
  { name: 'conformance', file: 'conformance/index.ts', flags: ['--base-url', '--secret-key', '--other-secret-key', '--live-secret-key', '--junit'] },
];

describe.concurrent('the commands’ command lines', () => {
  it.each(COMMANDS)('$name --help exits 0 and lists its flags', async ({ file, flags }) => {
    const ran = await runCommand(file, ['--help']);
    expect(ran.code, ran.stderr).toBe(0);
    for (const flag of flags) expect(ran.stdout).toContain(flag);
  });

  it.each(COMMANDS)('$name with an unknown flag names it and exits 2', async ({ file }) => {
    const ran = await runCommand(file, file.includes('merchant') ? ['create', '--colour', 'red'] : ['--colour', 'red']);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('--colour');
    expect(ran.stdout).toBe('');
  });
});
