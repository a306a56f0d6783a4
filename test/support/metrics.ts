// Reads Till's /metrics as Prometheus would: the text format, parsed by a Prometheus parser
// (parse-prometheus-text-format, a port of the Python client's), then one sample by its labels.
import parsePrometheusTextFormat, { type MetricFamily, type Sample } from 'parse-prometheus-text-format';
import { call } from './server.js';

/** A token for TILL_METRICS_TOKEN in tests (16 characters at least). */
export const METRICS_TOKEN = 'metrics-token-for-tests-0123456789';

export interface Scrape {
  families: Map<string, MetricFamily>;
  /** The value of a counter or gauge sample whose labels include `labels` (0 when there is none). */
  value(name: string, labels?: Record<string, string>): number;
  /** A histogram's count over its samples whose labels include `labels` (0 when there is none). */
  count(name: string, labels?: Record<string, string>): number;
}

const matches = (sample: Sample, labels: Record<string, string>) => Object.entries(labels).every(([k, v]) => sample.labels?.[k] === v);

/** GET /metrics with the token; fails on any answer but 200. */
export async function scrape(baseUrl: string, token = METRICS_TOKEN): Promise<Scrape> {
  const res = await call(baseUrl, 'GET', '/metrics', { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}: ${res.text.slice(0, 200)}`);
  return parseScrape(res.text);
}

/**
 * Parses a scrape's text. The parser folds a histogram's series into one (it keeps the buckets of
 * the last label set and drops the labelled `_count` and `_sum`), so the samples are read from a
 * second parse without the histograms' TYPE lines, where `<name>_count` is a series of its own.
 */
export function parseScrape(text: string): Scrape {
  const families = new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f]));
  // There, a histogram's series come as runs of `_bucket`, `_sum`, `_count` lines, a family each time.
  const untyped = new Map<string, Sample[]>();
  for (const f of parsePrometheusTextFormat(text.replace(/^# TYPE \S+ histogram$/gm, ''))) untyped.set(f.name, [...(untyped.get(f.name) ?? []), ...f.metrics]);
  const sum = (name: string, labels: Record<string, string>) =>
    (untyped.get(name) ?? []).filter((s) => matches(s, labels)).reduce((total, s) => total + Number(s.value ?? 0), 0);
  return {
    families,
    value: (name, labels = {}) => sum(name, labels),
    count: (name, labels = {}) => sum(`${name}_count`, labels),
  };
}
