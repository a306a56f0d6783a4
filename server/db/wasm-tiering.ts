// V8's tiering of WebAssembly, as Till sets it for PGlite: a module of its own, without PGlite, so
// that the server's launcher (server/launch.ts) sets it too before it compiles the bundle.
import v8 from 'node:v8';

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
 * 3,809–4,659/s.) It is V8's own setting for the whole process: a process that opens PGlite sets
 * it, and so does the built server's launcher, whatever its database, because V8 accepts a code
 * cache only under the flags it was made with (server/launch.ts).
 */
const WASM_TIERING_BUDGET = 400_000_000;

let budgetSet = false;

/** Sets V8's WebAssembly tiering budget (above), once a process. */
export function budgetWasmTiering(): void {
  if (budgetSet) return;
  v8.setFlagsFromString(`--wasm-tiering-budget=${WASM_TIERING_BUDGET}`);
  budgetSet = true;
}
