// A data directory the server cannot make: the start fails at once, saying which folder and why.
// With Node's recursive mkdir, TILL_DATA_DIR=/proc/… hung the start at 100% CPU (make-directory.ts).
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { embeddedEnv, useProcesses } from '../support/processes.js';

const { startTill } = useProcesses();

describe('a data directory that cannot be made', () => {
  it.runIf(existsSync('/proc/self'))(
    'under /proc: the server exits 1 naming the folder, instead of hanging',
    async () => {
      const till = await startTill(embeddedEnv(`/proc/till-${process.pid}`));
      expect(await till.exited).toEqual({ code: 1, signal: null });
      expect(till.output()).toContain(`Till could not start: cannot make the folder /proc/till-${process.pid}: /proc does not accept new folders`);
    },
    60_000,
  );
});
