// The conformance suite as a CI pipeline gets it: `npm pack` of the till-conformance workspace
// (which builds it), installed into a fresh folder outside the repository, and its bin run there:
// --help, --version, an unknown flag, and a contract-only run against a Till started here. The
// packed contracts must be generated/'s, byte for byte.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FLAGS } from '../../conformance/cli.js';
import { embeddedEnv, root, type Till, useProcesses } from '../support/processes.js';

const run = promisify(execFile);
const { tempDir, seededDataDir, startTill } = useProcesses();

// npm passes its settings to scripts as npm_* variables (the workspace, the prefix, ...): a child
// npm must not inherit the ones of the `npm test` that runs this file.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
const npm = (args: string[], cwd: string) => run('npm', args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });
const manifest = JSON.parse(readFileSync(path.join(root, 'conformance', 'package.json'), 'utf8'));

let app = '';
let tarball = '';
let till: Till | undefined;
let keys: { secret: string; publishable: string };

/** The installed bin, run from the folder it is installed in: its exit code and output. */
async function conformance(args: string[], command: 'bin' | 'npx' = 'bin') {
  const [file, prefix] = command === 'npx' ? ['npx', ['--no-install', 'till-conformance']] : [path.join(app, 'node_modules', '.bin', 'till-conformance'), []];
  try {
    const { stdout, stderr } = await run(file, [...prefix, ...args], { cwd: app, env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** Packs the workspace (its prepack builds it) and installs the tarball into a new folder outside the repository. */
async function packAndInstall(work: string) {
  const { stdout } = await npm(['pack', '--pack-destination', work, '--silent'], path.join(root, 'conformance'));
  tarball = path.join(work, stdout.trim().split('\n').pop()!);
  app = path.join(work, 'pipeline');
  await mkdir(app);
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'a-merchant-pipeline', private: true }));
  // The dependencies come from the npm cache when it is there (CI's `npm ci` fills it).
  await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball], app);
}

/** Till on a copy of the migrated template, with its demo merchant's test keys. */
async function startTarget() {
  const dataDir = await seededDataDir();
  till = await startTill(embeddedEnv(dataDir));
  if (!till.url) throw new Error(`Till did not start:\n${till.output().slice(-2000)}`);
  keys = JSON.parse(await readFile(path.join(dataDir, 'demo-merchant.json'), 'utf8')).keys.test;
}

beforeAll(async () => {
  const work = await tempDir();
  expect(path.relative(root, work).startsWith('..')).toBe(true);
  await Promise.all([packAndInstall(work), startTarget()]);
}, 240_000);

afterAll(() => {
  till?.child.kill('SIGTERM');
});

it('packs the bundled bin, the README and the contracts of generated/, byte for byte, and no sources', () => {
  const installed = path.join(app, 'node_modules', 'till-conformance');
  console.log(`till-conformance ${manifest.version}: packed ${(statSync(tarball).size / 1024).toFixed(0)} KB`);
  const bin = path.join(installed, manifest.bin['till-conformance']);
  expect(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  expect(statSync(bin).mode & 0o111).not.toBe(0);
  expect(existsSync(path.join(installed, 'README.md'))).toBe(true);
  for (const contract of ['checkout.openapi.json', 'commerce.openapi.json'])
    expect(readFileSync(path.join(installed, 'dist', 'generated', contract)).equals(readFileSync(path.join(root, 'generated', contract))), contract).toBe(true);
  for (const source of ['index.ts', 'scenarios', 'scripts', 'test']) expect(existsSync(path.join(installed, source)), source).toBe(false);
  for (const dependency of Object.keys(manifest.dependencies)) expect(existsSync(path.join(app, 'node_modules', dependency)), dependency).toBe(true);
});

it('answers --help with every flag (exit 0), --version with its version, and an unknown flag with exit 2 naming it', async () => {
  const help = await conformance(['--help'], 'npx');
  expect(help.code).toBe(0);
  for (const flag of FLAGS) expect(help.stdout, `--help lists --${flag.name}`).toContain(`--${flag.name}`);
  expect(help.stdout).toMatch(/Exit status: 0 .*, 1 .*, 2 /);

  const version = await conformance(['--version']);
  expect(version).toMatchObject({ code: 0, stdout: `${manifest.version}\n` });

  const unknown = await conformance(['--base-url', 'http://127.0.0.1:1', '--secret-key', 'sk_test_x', '--no-such-flag']);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain('unknown flag --no-such-flag');
});

// The whole file takes about 35 s of CPU, most of it the fresh server's first answers: well under a
// minute on two idle cores, minutes on a loaded machine, hence the time limits.
it('runs the contract part against a Till from the folder it is installed in, and writes JUnit XML', async () => {
  const junit = path.join(app, 'out', 'junit.xml');
  const args = ['--base-url', till!.url, '--secret-key', keys.secret, '--publishable-key', keys.publishable, '--contract-only', '--quiet', '--junit', junit];
  const result = await conformance(args);
  expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
  expect(result.stdout).toMatch(/Operations: (\d+) of \1 implemented; \1 pass every case\./);
  expect(result.stdout).toMatch(/\d+ passed, 0 failed, \d+ pending/);
  expect(readFileSync(junit, 'utf8')).toMatch(/<testsuite name="contract" tests="\d+" failures="0"/);
}, 300_000);
