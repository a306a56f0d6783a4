// deploy/: the Prometheus scrape configuration, Grafana's provisioning and dashboard, and
// compose.yaml's `observability` profile that runs them beside Till. No image can be pulled here,
// so this checks that they fit together: every file parses, every path one names is mounted from
// a file that exists, and every PromQL expression of the dashboard parses (Prometheus's own
// grammar, @prometheus-io/lezer-promql) and names only metrics Till exports.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { collectProcessMetrics, register } from '../../server/metrics/registry.js';

const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const compose = parse(read('compose.yaml'));
const prometheus = parse(read('deploy/prometheus/prometheus.yml'));
const dashboard = JSON.parse(read('deploy/grafana/dashboards/till.json'));
const datasources = parse(read('deploy/grafana/provisioning/datasources/prometheus.yaml'));
const providers = parse(read('deploy/grafana/provisioning/dashboards/till.yaml'));

/** A service's bind mounts: container path → the repository path mounted there. */
function mounts(service: string): Map<string, string> {
  const entries = (compose.services[service].volumes as string[]).filter((v) => v.startsWith('./')).map((v) => v.split(':'));
  return new Map(entries.map(([from, to]) => [to!, path.posix.normalize(from!)]));
}

/** Every metric name a scrape can show: the registry's, with a histogram's series. */
async function exportedNames(): Promise<Set<string>> {
  collectProcessMetrics();
  const names = new Set<string>();
  for (const metric of await register.getMetricsAsJSON()) {
    names.add(metric.name);
    if (String(metric.type) === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(metric.name + suffix);
  }
  return names;
}

/** Every panel's queries (rows nest theirs). */
function expressions(): { panel: string; expr: string }[] {
  const panels = dashboard.panels.flatMap((p: any) => [p, ...(p.panels ?? [])]);
  return panels.flatMap((p: any) => (p.targets ?? []).map((t: any) => ({ panel: p.title, expr: t.expr as string })));
}

/** The metric names a PromQL expression selects, and whether it parsed without an error. */
function selected(expr: string): { names: string[]; errors: number } {
  // Grafana fills its variables in before Prometheus sees the query.
  const text = expr.replaceAll('$__rate_interval', '5m');
  const names: string[] = [];
  let errors = 0;
  parser.parse(text).iterate({
    enter: (node) => {
      if (node.type.isError) errors += 1;
      if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector') names.push(text.slice(node.from, node.to));
    },
  });
  return { names, errors };
}

describe('deploy/: Prometheus and Grafana beside Till', () => {
  it('compose.yaml starts them in the observability profile only, with the files of deploy/', () => {
    for (const service of ['prometheus', 'grafana']) {
      expect(compose.services[service].profiles).toEqual(['observability']);
      for (const from of mounts(service).values()) expect(existsSync(path.join(root, from)), from).toBe(true);
    }
    for (const service of ['postgres', 'till']) expect(compose.services[service].profiles).toBeUndefined();
    expect(compose.services.till.environment.TILL_METRICS_TOKEN).toBe('${TILL_METRICS_TOKEN:-}');
    expect(mounts('prometheus').get('/etc/prometheus/prometheus.yml')).toBe('deploy/prometheus/prometheus.yml');
    expect(mounts('grafana').get('/etc/grafana/provisioning')).toBe('deploy/grafana/provisioning');
    expect(mounts('grafana').get('/var/lib/grafana/dashboards')).toBe('deploy/grafana/dashboards');
  });

  it('Prometheus scrapes /metrics of the till service with the token Till was given', () => {
    const [job] = prometheus.scrape_configs;
    expect(job.metrics_path).toBe('/metrics');
    expect(job.static_configs[0].targets).toEqual(['till:3000']);
    expect(job.authorization.type).toBe('Bearer');
    const token = compose.services.prometheus.configs.find((c: any) => c.source === 'till-metrics-token');
    expect(token.target).toBe(job.authorization.credentials_file);
    expect(compose.configs['till-metrics-token'].content).toBe('${TILL_METRICS_TOKEN:-}');
  });

  it("Grafana's data source is that Prometheus, and its dashboards are read where they are mounted", () => {
    const [source] = datasources.datasources;
    expect(source).toMatchObject({ type: 'prometheus', url: 'http://prometheus:9090', isDefault: true });
    expect(providers.providers[0].options.path).toBe('/var/lib/grafana/dashboards');
    const used = new Set(dashboard.panels.filter((p: any) => p.datasource).map((p: any) => p.datasource.uid));
    expect([...used]).toEqual([source.uid]);
  });

  it('every PromQL expression of the dashboard parses and names only metrics Till exports, and every Till metric is on it', async () => {
    const exported = await exportedNames();
    const shown = new Set<string>();
    for (const { panel, expr } of expressions()) {
      const { names, errors } = selected(expr);
      expect(errors, `${panel}: ${expr}`).toBe(0);
      expect(names.length, `${panel}: ${expr}`).toBeGreaterThan(0);
      for (const name of names) {
        expect(exported.has(name), `${panel}: ${name} is not a metric Till exports`).toBe(true);
        shown.add(name.replace(/_(bucket|sum|count)$/, ''));
      }
    }
    const tills = [...exported].filter((n) => n.startsWith('till_') && !/_(bucket|sum|count)$/.test(n));
    expect(tills.filter((n) => !shown.has(n))).toEqual([]);
  });
});
