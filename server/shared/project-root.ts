/**
 * The project's root folder, whether this code runs from its TypeScript source (`server/…`, under
 * tsx or vitest) or compiled (`dist/server/…`, as `npm start` runs it): where `generated/`,
 * `web/` and the stylesheet are read from.
 */
const compiled = import.meta.url.lastIndexOf('/dist/server/');
// Compiled, this code may be anywhere under dist/server/ (npm start runs it bundled into dist/server/bundle.cjs).
export const PROJECT_ROOT = compiled === -1 ? new URL('../../', import.meta.url) : new URL(import.meta.url.slice(0, compiled + 1));

/** Where the build's outputs are: `dist/` when this code runs compiled, else the root itself. */
export const BUILD_ROOT = compiled === -1 ? PROJECT_ROOT : new URL('dist/', PROJECT_ROOT);

/** A file of the project, by its path from the root. */
export const projectFile = (path: string): URL => new URL(path, PROJECT_ROOT);
