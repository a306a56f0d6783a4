import type { Request, RequestHandler, Response } from 'express';
import { httpDuration, httpInFlight, httpRequests } from './registry.js';

/** The labels of one answer; one object per request, reused by the counter and the histogram. */
interface RequestLabels {
  operation_id: string;
  method: string;
  status: string;
}

/**
 * Counts every request and its latency by the operationId `resolveOperation` found (`page` for
 * what is outside the API, `unmatched` for an API path of no operation), method and status, and
 * the requests in flight. First in the pipeline, so its time covers the whole answer. Per request:
 * one listener and one small labels object; one counter increment and one histogram observation
 * once the response closes (a client that leaves first is counted as `aborted`).
 */
export function measureRequests(): RequestHandler {
  return (req, res, next) => {
    httpInFlight.inc();
    const started = performance.now();
    res.on('close', () => answered(req, res, started));
    next();
  };
}

function answered(req: Request, res: Response, started: number): void {
  httpInFlight.dec();
  const labels: RequestLabels = {
    operation_id: req.till?.route?.operationId ?? (isApi(req.originalUrl ?? req.url) ? 'unmatched' : 'page'),
    method: req.method,
    status: res.writableFinished ? String(res.statusCode) : 'aborted',
  };
  httpRequests.inc(labels);
  httpDuration.observe(labels, (performance.now() - started) / 1000);
}

const isApi = (url: string): boolean => url.startsWith('/v1/') || url.startsWith('/api/');
