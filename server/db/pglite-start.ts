// How Till opens PGlite: the server, the tests, the build's template and the bench's PGlite floor.
import v8 from 'node:v8';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';

/**
 * PGlite's own start parameters, with a buffer pool of 64 MB instead of PostgreSQL's 128 MB. An
 * open spends time on the pool in proportion to its size beyond that: on a copy of the build's
 * template, a median of 660 ms with 128 MB against 500–520 ms with 16, 32 or 64 MB (eight
 * alternating opens each; one engine function, 13% of an open's profile at 128 MB, 2% at 16 MB).
 * 64 MB still holds a large sandbox: the dashboard bench's merchant (10,000 payments with their
 * events, deliveries and request logs) answered its pages as fast as with 128 MB.
 */
export const PGLITE_START_PARAMS: readonly string[] = [...PGlite.defaultStartParams, '-c', 'shared_buffers=64MB'];

/**
 * How much a WebAssembly function runs before V8 compiles it again with its optimizing compiler
 * (`--wasm-tiering-budget`; V8's default is 1.8 million). At the default, the engine's functions
 * that an open runs most are recompiled right after it, and that held the event loop for
 * 100–160 ms before the first statement (Node 20; 20–35 ms on Node 24). With this budget they are
 * recompiled later, once they have run long enough to be worth it. Measured (2026-11-29, the
 * bench's PGlite parts, alternating runs; three at the default, two with this budget): a restart
 * of `npm start` to the first 200 in a median of 1.30–1.49 s against 0.98–1.07 s, a first start
 * 2.1–2.5 s against 1.7–1.9 s; GET one plan 4,529–4,785 req/s against 4,237–4,533, customers and
 * sessions within the runs' spread. (A budget of 1,000 million: restarts of 0.99–1.21 s, GETs
 * 3,809–4,659/s.) It is V8's own setting for the whole process, and only a process that opens
 * PGlite changes it.
 */
const WASM_TIERING_BUDGET = 400_000_000;

let budgetSet = false;

/** PGlite.create with Till's start parameters, its WebAssembly optimized once it has run for a while (above). */
export const createPglite = (options: Omit<PGliteOptions, 'startParams'> = {}): Promise<PGlite> => {
  if (!budgetSet) v8.setFlagsFromString(`--wasm-tiering-budget=${WASM_TIERING_BUDGET}`); // once a process
  budgetSet = true;
  return PGlite.create({ ...options, startParams: [...PGLITE_START_PARAMS] });
};
