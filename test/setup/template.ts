// Vitest global setup: builds the run's migrated template database once, before any test file
// starts (test/support/database.ts), so no test file migrates on its own.
import { pgliteTemplateFile, postgresTemplate, prunePgliteTemplates, usingPostgres } from '../support/database.js';

export default async function setup(): Promise<void> {
  if (usingPostgres) {
    await postgresTemplate();
    return;
  }
  await prunePgliteTemplates(await pgliteTemplateFile());
}
