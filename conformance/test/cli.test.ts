// The command line: the parser, --help and the README's table all list the same flags, and a bad
// call names what is wrong and exits with status 2.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FLAGS, helpText, parseValues, readOptions } from '../cli.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** The flags of the README's table: the first cell of each row that starts with a flag. */
const readmeFlags = [...readme.matchAll(/^\| `--([a-z-]+)/gm)].map((m) => m[1]);

describe('the flags', () => {
  it('are all in --help and in the README, each with its environment variable, and the README lists no other', () => {
    const help = helpText();
    for (const flag of FLAGS) {
      expect(help).toContain(`--${flag.name}`);
      if (flag.env) expect(help).toContain(flag.env);
      const row = readme.split('\n').find((line) => line.startsWith(`| \`--${flag.name}`));
      expect(row, `README row of --${flag.name}`).toBeDefined();
      if (flag.env) expect(row).toContain(`\`${flag.env}\``);
    }
    expect(readmeFlags.sort()).toEqual(FLAGS.map((f) => f.name).sort());
  });

  it('parse: values, repeated flags and switches', () => {
    const values = parseValues(['--base-url', 'https://till.example.com', '--only', 'a.', '--only', 'b.', '--contract-only', '-h']);
    expect(values).toMatchObject({ 'base-url': 'https://till.example.com', only: ['a.', 'b.'], 'contract-only': true, help: true });
  });
});

describe('a bad call', () => {
  afterEach(() => vi.restoreAllMocks());

  /** Runs the parser on `args` (and reads the options); answers the exit status and what it wrote to stderr. */
  function badCall(args: string[]): { status: unknown; stderr: string } {
    const errors: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: string) => void errors.push(line));
    vi.spyOn(process, 'exit').mockImplementation((code) => {
      throw Object.assign(new Error('exit'), { status: code });
    });
    try {
      readOptions(parseValues(args));
      return { status: undefined, stderr: errors.join('\n') };
    } catch (err) {
      return { status: (err as { status?: unknown }).status, stderr: errors.join('\n') };
    }
  }

  it('an unknown flag exits 2 naming it', () => {
    const { status, stderr } = badCall(['--base-url', 'https://till.example.com', '--secret', 'sk_test_x']);
    expect(status).toBe(2);
    expect(stderr).toContain('unknown flag --secret');
    expect(stderr).toContain('--help');
  });

  it('a stray argument and a flag without its value exit 2', () => {
    expect(badCall(['https://till.example.com'])).toMatchObject({ status: 2, stderr: expect.stringContaining('unexpected argument https://till.example.com') });
    expect(badCall(['--base-url'])).toMatchObject({ status: 2, stderr: expect.stringContaining('--base-url') });
  });

  it('the receiver: --receiver-port needs --receiver-url, and a URL without a port needs --receiver-port', () => {
    const call = ['--base-url', 'https://till.example.com', '--secret-key', 'sk_test_x'];
    expect(badCall([...call, '--receiver-port', '4141'])).toMatchObject({ status: 2, stderr: expect.stringContaining('--receiver-port needs --receiver-url') });
    expect(badCall([...call, '--receiver-url', 'https://hooks.example.com'])).toMatchObject({
      status: 2,
      stderr: expect.stringContaining('give --receiver-port'),
    });
    expect(badCall([...call, '--receiver-url', 'ftp://hooks.example.com:21'])).toMatchObject({ status: 2, stderr: expect.stringContaining('http(s) URL') });
    expect(readOptions(parseValues([...call, '--receiver-url', 'https://hooks.example.com/ci/', '--receiver-port', '4141'])).options.receiver).toEqual({
      url: 'https://hooks.example.com/ci',
      port: 4141,
    });
    expect(readOptions(parseValues([...call, '--receiver-url', 'https://127.0.0.1:4142'])).options.receiver).toEqual({
      url: 'https://127.0.0.1:4142',
      port: 4142,
    });
  });
});
