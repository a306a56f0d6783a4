import type PgBoss from 'pg-boss';
import { jobDuration, jobsFailed, jobsRunning, queuedJobSources } from './registry.js';

/** A queue's work, measured: running now, each run's duration and outcome, the runs that threw. */
export function measuredJob<A extends unknown[], R>(queue: string, work: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  const labels = { queue };
  return async (...args) => {
    jobsRunning.inc(labels);
    const started = performance.now();
    let outcome = 'failed';
    try {
      const result = await work(...args);
      outcome = 'completed';
      return result;
    } catch (err) {
      jobsFailed.inc(labels);
      throw err;
    } finally {
      jobsRunning.dec(labels);
      jobDuration.observe({ queue, outcome }, (performance.now() - started) / 1000);
    }
  };
}

/** Has every scrape read the jobs waiting in `queues` from pg-boss (until the returned function is called). */
export function watchQueues(boss: PgBoss, queues: string[]): () => void {
  const source = () => Promise.all(queues.map(async (queue) => [queue, await boss.getQueueSize(queue)] as const));
  queuedJobSources.add(source);
  return () => void queuedJobSources.delete(source);
}
