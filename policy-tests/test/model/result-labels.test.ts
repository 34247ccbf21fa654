/**
 * The labels an expression's result carries (model/monitoring/promql.ts `resultLabels`), which metrics-join holds an
 * alert's templates to: each rule of Prometheus's engine on its own, then measured against promtool, whose rule tests
 * in monitoring/alert-rules/tests give the labels of every alert they expect.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { resultLabels } from '../../model/monitoring/promql.ts';
import { metricsCatalog } from '../../model/monitoring/metrics-catalog.ts';
import { seriesLabels } from '../../model/monitoring/metrics-reads.ts';
import { ruleEntries } from '../../model/monitoring/prometheus-rules.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';

const SERIES: Record<string, string[]> = {
  a: ['job', 'namespace', 'pod', 'x', 'y'],
  b: ['job', 'namespace', 'x', 'z'],
  h: ['job', 'le'],
};
const labels = (expr: string) => {
  const got = resultLabels(expr, (s) => (s.name && SERIES[s.name] ? new Set(SERIES[s.name]) : undefined));
  return got && [...got].sort();
};

describe('the labels of an expression its result carries', () => {
  it('a selector, a function of it and a comparison with a number keep its labels', () => {
    expect(labels('a')).toEqual(['job', 'namespace', 'pod', 'x', 'y']);
    expect(labels('rate(a[5m]) > 1')).toEqual(['job', 'namespace', 'pod', 'x', 'y']);
    expect(labels('(-a offset 5m)')).toEqual(['job', 'namespace', 'pod', 'x', 'y']);
  });
  it('an aggregation keeps what it groups by, or all but what it leaves out; topk keeps each series whole', () => {
    expect(labels('sum by (namespace, nothere) (a)')).toEqual(['namespace']);
    expect(labels('max without (pod, x) (a)')).toEqual(['job', 'namespace', 'y']);
    expect(labels('count(a) == 0')).toEqual([]);
    expect(labels('topk by (job) (3, a)')).toEqual(['job', 'namespace', 'pod', 'x', 'y']);
    expect(labels('count_values by (job) ("version", a)')).toEqual(['job', 'version']);
  });
  it('a vector match keeps the left side, its on labels only, or its many side and the included labels the one side has', () => {
    expect(labels('a / b')).toEqual(['job', 'namespace', 'pod', 'x', 'y']);
    expect(labels('a / on (job, namespace) b')).toEqual(['job', 'namespace']);
    expect(labels('a / ignoring (pod, y) b')).toEqual(['job', 'namespace', 'x']);
    expect(labels('a * on (job) group_left (z, w) b')).toEqual(['job', 'namespace', 'pod', 'x', 'y', 'z']);
    // pod is the one side's to give, and b has none: Prometheus deletes it from the result.
    expect(labels('b * on (job) group_right (pod) a')).toEqual(['job', 'namespace', 'x', 'y']);
  });
  it('or keeps either side, and and unless the left', () => {
    expect(labels('sum by (job) (a) or sum by (z) (b)')).toEqual(['job', 'z']);
    expect(labels('sum by (job) (a) unless b')).toEqual(['job']);
  });
  it('absent() gives its equality matchers, vector() nothing, histogram_quantile drops le', () => {
    expect(labels('absent(a{job="x", pod=~"p.*"})')).toEqual(['job']);
    expect(labels('vector(1)')).toEqual([]);
    expect(labels('histogram_quantile(0.9, rate(h[5m]))')).toEqual(['job']);
  });
  it('is not known where a selector is not, or a function makes labels', () => {
    expect(labels('unknown_metric')).toBeUndefined();
    expect(labels('label_replace(a, "node", "$1", "instance", "(.*)")')).toBeUndefined();
    expect(labels('sum(a) by (job) / on () group_left unknown_metric')).toBeUndefined();
  });
});

describe("the labels promtool gives the repository's alerts", async () => {
  const repo = await loadRepo(REPO_ROOT);
  const catalog = metricsCatalog(repo);
  const recorded = new Set(ruleEntries(repo.resources).flatMap(({ rule }) => (typeof rule.record === 'string' ? [rule.record] : [])));
  const rules = new Map(ruleEntries(repo.resources).flatMap(({ rule }) => (typeof rule.alert === 'string' ? [[rule.alert, rule] as const] : [])));
  const dir = join(REPO_ROOT, 'monitoring/alert-rules/tests');
  const expected = readdirSync(dir)
    .filter((f) => f.endsWith('.test.yaml'))
    .flatMap((f) =>
      (
        (
          parse(readFileSync(join(dir, f), 'utf8')) as {
            tests?: { alert_rule_test?: { alertname: string; exp_alerts?: { exp_labels?: Record<string, string> }[] }[] }[];
          }
        ).tests ?? []
      ).flatMap((t) =>
        (t.alert_rule_test ?? []).flatMap((a) => (a.exp_alerts ?? []).map((x) => ({ file: f, alert: a.alertname, labels: Object.keys(x.exp_labels ?? {}) }))),
      ),
    );

  it('are within the labels the gate reads from each expression, where it knows them', () => {
    let judged = 0;
    const missed: string[] = [];
    for (const { file, alert, labels: given } of expected) {
      const rule = rules.get(alert);
      const result = rule && resultLabels(String(rule.expr), (s) => seriesLabels(catalog, recorded, s));
      if (!rule || !result) continue;
      judged++;
      const own = Object.keys((rule.labels ?? {}) as object);
      for (const label of given) if (!own.includes(label) && !result.has(label)) missed.push(`${file} ${alert}: ${label}`);
    }
    expect(missed).toEqual([]);
    // Most alerts read series the catalog knows: the measure is not an empty one.
    expect(judged).toBeGreaterThan(expected.length / 2);
  });
});
