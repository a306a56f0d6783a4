// Traces on the embedded database (PGlite): Till makes the SQL spans itself (traces-scenarios.ts).
import { embeddedEnv } from '../support/processes.js';
import { describeTraces } from './traces-scenarios.js';

describeTraces('PGlite', async ({ seededDataDir }) => {
  const dataDir = await seededDataDir();
  return { env: embeddedEnv(dataDir), dataDir };
});
