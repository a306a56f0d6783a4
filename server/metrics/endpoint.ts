import type { RequestHandler } from 'express';
import { hashSecret, sameHash } from '../shared/crypto.js';
import { clusterMetrics, inCluster } from './cluster.js';
import { register } from './registry.js';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * `GET /metrics`, Prometheus's text format, for a caller with `Authorization: Bearer <token>`
 * (compared in constant time); 401 otherwise. With several workers, every worker's numbers summed.
 * Mounted only when TILL_METRICS_TOKEN is set (without it, /metrics is a 404 like any unknown page).
 */
export function metricsEndpoint(token: string): RequestHandler {
  const expected = hashSecret(token);
  return async (req, res, next) => {
    const presented = BEARER.exec(req.get('authorization') ?? '')?.[1];
    res.setHeader('Cache-Control', 'no-store');
    if (!presented || !sameHash(hashSecret(presented), expected)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      res.status(401).type('text/plain').send('Unauthorized: send Authorization: Bearer <TILL_METRICS_TOKEN>.\n');
      return;
    }
    try {
      const text = inCluster() ? await clusterMetrics() : await register.metrics();
      res.status(200).type(register.contentType).send(text);
    } catch (err) {
      next(err);
    }
  };
}
