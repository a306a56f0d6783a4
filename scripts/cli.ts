// The command line of Till's commands (listen, operations, bench): `--help` prints the command's
// usage and exits 0; an unknown or malformed flag names itself and exits 2, with a pointer to --help.
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Exit status for a bad call (as `merchant` and `conformance` use). */
export const BAD_CALL = 2;

/** Prints `message` as the command's error and exits with status 2. */
export function badCall(command: string, message: string): never {
  console.error(`${command}: ${message}\nRun \`npm run ${command} -- --help\` for its flags.`);
  process.exit(BAD_CALL);
}

/**
 * Parses `argv` strictly against `options` (plus `--help`). `--help` prints `help` and exits 0; an
 * unknown flag, a missing value or a stray argument exits 2 naming it.
 */
export function parseCommandLine<T extends Options>(command: string, help: string, options: T, argv: string[] = process.argv.slice(2)) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false });
  } catch (err) {
    badCall(command, (err as Error).message);
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(help.trimEnd());
    process.exit(0);
  }
  return parsed.values as ReturnType<typeof parseArgs<{ options: T }>>['values'];
}
