// GET /metrics: Prometheus's text format behind a bearer token, read with a Prometheus parser.
// Requests are counted by operationId, method and status; the other metrics are all there.
import { describe, expect, it } from 'vitest';
import { METRICS_TOKEN, scrape } from '../support/metrics.js';
import { call, startTestServer, useTestServer } from '../support/server.js';

const t = useTestServer({ config: { metricsToken: METRICS_TOKEN } });

/** Every metric Till exports, by the name Prometheus shows (docs/observability.md lists them). */
const EXPORTED = [
  'till_http_requests_total',
  'till_http_request_duration_seconds',
  'till_http_requests_in_flight',
  'till_webhook_deliveries_total',
  'till_webhook_delivery_lag_seconds',
  'till_jobs_queued',
  'till_jobs_running',
  'till_jobs_failed_total',
  'till_job_duration_seconds',
  'till_db_pool_connections',
  'till_db_pool_max_connections',
  'till_db_pool_waiting_requests',
  'till_db_pool_wait_seconds',
  'nodejs_eventloop_lag_seconds',
  'nodejs_eventloop_lag_p99_seconds',
  'process_cpu_seconds_total',
  'process_resident_memory_bytes',
  'nodejs_heap_size_used_bytes',
];

describe('GET /metrics', () => {
  it('answers Prometheus text format with every metric Till exports', async () => {
    const res = await t.call('GET', '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const metrics = await scrape(t.url);
    for (const name of EXPORTED) expect(metrics.families.has(name), name).toBe(true);
    expect(metrics.families.get('till_http_requests_total')!.type).toBe('COUNTER');
    expect(metrics.families.get('till_http_request_duration_seconds')!.type).toBe('HISTOGRAM');
    expect(metrics.families.get('till_http_requests_in_flight')!.type).toBe('GAUGE');
  });

  it('counts three requests to an operation as three, by operationId, method and status, with their latency', async () => {
    const key = t.merchantA.keys.test.secret;
    const labels = { operation_id: 'listPlans', method: 'GET', status: '200' };
    const before = await scrape(t.url);
    for (let i = 0; i < 3; i++) expect((await t.call('GET', '/v1/plans', { key })).status).toBe(200);
    const after = await scrape(t.url);
    expect(after.value('till_http_requests_total', labels) - before.value('till_http_requests_total', labels)).toBe(3);
    expect(after.count('till_http_request_duration_seconds', labels) - before.count('till_http_request_duration_seconds', labels)).toBe(3);
  });

  it('counts a refused request under its operation and status, an unknown API path as unmatched, a page as page', async () => {
    const before = await scrape(t.url);
    expect((await t.call('GET', '/v1/plans', { key: 'sk_test_not_a_key' })).status).toBe(401);
    expect((await t.call('GET', '/v1/no-such-thing')).status).toBe(404);
    expect((await t.call('GET', '/healthz')).status).toBe(200);
    const after = await scrape(t.url);
    const delta = (labels: Record<string, string>) => after.value('till_http_requests_total', labels) - before.value('till_http_requests_total', labels);
    expect(delta({ operation_id: 'listPlans', method: 'GET', status: '401' })).toBe(1);
    expect(delta({ operation_id: 'unmatched', method: 'GET', status: '404' })).toBe(1);
    expect(delta({ operation_id: 'page', method: 'GET', status: '200' })).toBeGreaterThanOrEqual(2); // /healthz and the scrape before
  });

  it('refuses a scrape without the token or with a wrong one (401, with WWW-Authenticate)', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong-token-of-the-same-length-0000' },
      { authorization: `Basic ${METRICS_TOKEN}` },
    ];
    for (const headers of attempts) {
      const res = await t.call('GET', '/metrics', { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect(res.text).not.toContain('till_http');
    }
  });

  it('is not served at all (404) when TILL_METRICS_TOKEN is not set', async () => {
    const other = await startTestServer();
    try {
      const res = await call(other.url, 'GET', '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(res.status).toBe(404);
      expect(res.text).not.toContain('till_http');
    } finally {
      await other.close();
    }
  });
});
