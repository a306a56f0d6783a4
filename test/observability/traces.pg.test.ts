// Traces on PostgreSQL: the SQL spans are the OpenTelemetry pg instrumentation's (traces-scenarios.ts).
import { processDatabase } from '../support/processes.js';
import { describeTraces } from './traces-scenarios.js';

describeTraces('PostgreSQL', async () => {
  const database = await processDatabase('traces');
  await database.release();
  return { env: { ...process.env, ...database.env }, dataDir: database.env.TILL_DATA_DIR!, drop: () => database.drop() };
});
