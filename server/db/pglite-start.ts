// How Till opens PGlite: the server, the tests, the build's template and the bench's PGlite floor.
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { budgetWasmTiering } from './wasm-tiering.js';

/**
 * PGlite's own start parameters, with a buffer pool of 64 MB instead of PostgreSQL's 128 MB. An
 * open spends time on the pool in proportion to its size beyond that: on a copy of the build's
 * template, a median of 660 ms with 128 MB against 500–520 ms with 16, 32 or 64 MB (eight
 * alternating opens each; one engine function, 13% of an open's profile at 128 MB, 2% at 16 MB).
 * 64 MB still holds a large sandbox: the dashboard bench's merchant (10,000 payments with their
 * events, deliveries and request logs) answered its pages as fast as with 128 MB.
 */
export const PGLITE_START_PARAMS: readonly string[] = [...PGlite.defaultStartParams, '-c', 'shared_buffers=64MB'];

/** PGlite.create with Till's start parameters, its WebAssembly optimized once it has run for a while (wasm-tiering.ts). */
export const createPglite = (options: Omit<PGliteOptions, 'startParams'> = {}): Promise<PGlite> => {
  budgetWasmTiering();
  return PGlite.create({ ...options, startParams: [...PGLITE_START_PARAMS] });
};
