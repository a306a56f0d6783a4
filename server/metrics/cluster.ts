// Metrics over node:cluster (TILL_WORKERS > 1). A scrape reaches one worker; that worker asks the
// primary, and the primary asks every worker for its registry (prom-client's AggregatorRegistry)
// and answers the sum: counters and histograms add up, gauges add up unless their metric says
// otherwise (`aggregator`), prom-client's process metrics aggregate as it defines.
import cluster from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';

const ASK = 'till:metrics-ask';
const ANSWER = 'till:metrics-answer';
/** How long a worker waits for the primary's sum (prom-client gives up on a silent worker after 5 s). */
const ANSWER_TIMEOUT_MS = 10_000;

interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}

const isMessage = (message: unknown, type: string): message is { type: string; id: number } =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;

/** In the primary: answers each worker that asks with every worker's metrics, summed. */
export function answerWorkersWithClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: unknown) => {
    if (!isMessage(message, ASK)) return;
    aggregator.clusterMetrics().then(
      (text) => worker.isConnected() && worker.send({ type: ANSWER, id: message.id, text } satisfies Answer),
      (err: unknown) => worker.isConnected() && worker.send({ type: ANSWER, id: message.id, error: err instanceof Error ? err.message : String(err) }),
    );
  });
}

let asked = 0;
const waiting = new Map<number, { resolve: (text: string) => void; reject: (err: Error) => void }>();
let listening = false;

/**
 * In a worker: answers the primary's requests for this worker's registry (prom-client's listener),
 * and hears the primary's sums. Called once the worker's metrics exist.
 */
export function joinClusterMetrics(): void {
  if (!cluster.isWorker || listening) return;
  listening = true;
  new AggregatorRegistry(); // adds prom-client's listener that answers the primary
  process.on('message', (message: unknown) => {
    if (!isMessage(message, ANSWER)) return;
    const answer = message as Answer;
    const pending = waiting.get(answer.id);
    waiting.delete(answer.id);
    if (answer.text !== undefined) pending?.resolve(answer.text);
    else pending?.reject(new Error(answer.error ?? 'no metrics'));
  });
}

/** Whether this process is one of several workers, whose metrics the primary sums. */
export const inCluster = (): boolean => cluster.isWorker && typeof process.send === 'function';

/** In a worker: every worker's metrics, summed by the primary. */
export function clusterMetrics(): Promise<string> {
  const id = ++asked;
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      waiting.delete(id);
      reject(new Error('the primary did not answer with the cluster metrics in time'));
    }, ANSWER_TIMEOUT_MS);
    const done =
      <T>(settle: (value: T) => void) =>
      (value: T) => {
        clearTimeout(timer);
        settle(value);
      };
    waiting.set(id, { resolve: done(resolve), reject: done(reject) });
    process.send!({ type: ASK, id });
  });
}
