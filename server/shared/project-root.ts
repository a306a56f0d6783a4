/**
 * The project's root folder, whether this code runs from its TypeScript source (`server/…`, under
 * tsx or vitest) or compiled (`dist/server/…`, as `npm start` runs it): where `generated/`,
 * `web/` and the stylesheet are read from.
 */
export const PROJECT_ROOT = new URL(import.meta.url.includes('/dist/server/') ? '../../../' : '../../', import.meta.url);

/** A file of the project, by its path from the root. */
export const projectFile = (path: string): URL => new URL(path, PROJECT_ROOT);
