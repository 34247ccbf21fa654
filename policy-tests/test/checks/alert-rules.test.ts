/**
 * Every alert rule is checked and unit-tested with the real promtool
 * (Debian's prometheus 2.42): each PrometheusRule is written out as a rule
 * file, and monitoring/alert-rules/tests/*.test.yaml run against them.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { alertRules, prometheusRules } from '../../model/monitoring/prometheus-rules.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';
import { exec, installed } from '../../../test-support/exec.ts';
import { skipForMissing } from '../../../test-support/missing-tool.ts';

const TESTS_DIR = join(REPO_ROOT, 'monitoring/alert-rules/tests');
const hasPromtool = !skipForMissing((await installed('promtool')) ? [] : ['promtool'], 'alert rules');
if (!hasPromtool) console.warn('\n*** promtool not found: SKIPPING the alert rule tests. Install Debian package "prometheus" (bash .ci/run does). ***\n');

/** The alerts of the hosting spec's alert table (AppGateway* is a family: at least one critical and one warning). */
export const REQUIRED_ALERTS = [
  'InternetDown',
  'PublicSiteDown',
  'BackupJobStale',
  'RestoreTestFailed',
  'VolSyncBackupStale',
  'NasDiskUnhealthy',
  'NasRaidDegraded',
  'NasVolumeAlmostFull',
  'NasMetricsDown',
  'HypervisorHostDown',
  'HypervisorStorageAlmostFull',
  'HypervisorMetricsDown',
  'DeploymentUnavailable',
  'PodCrashLooping',
  'MediaQueueStuck',
  'MediaRootFolderLow',
  'MediaAppUnreachable',
  'MediaExporterDown',
  'TorrentClientDisconnected',
  'CertificateExpiringSoon',
  'ContainerRestartingFrequently',
  'ContainerOOMKilled',
  'GitopsAppDegraded',
  'GitopsAppSyncStuck',
  'ExternalSecretNotReady',
  'KubeHpaMaxedOut',
];
const WARNING_ALERTS = [
  'ContainerRestartingFrequently',
  'ContainerOOMKilled',
  'GitopsAppDegraded',
  'GitopsAppSyncStuck',
  'ExternalSecretNotReady',
  'KubeHpaMaxedOut',
  // The platform's own health (platform-health.yaml): warnings, like the rest of the platform rules.
  'FalcoEventsDropped',
  'FalcoOutputsDropped',
  'FalcosidekickDeliveryFailing',
  'LokiDiscardingLogs',
  'TempoDiscardingSpans',
  'AlloyComponentUnhealthy',
  'MetalLBPoolExhausted',
  'CephHealthNotOK',
  'CiliumControllersFailing',
  'CiliumOperatorDown',
  'CertManagerSyncErrors',
  'ArgoCDClusterUnreachable',
];

/** The alert table's hold times (A17) that a rule's `for` carries; BackupJobStale's 26 h and RestoreTestFailed's 32 days are in their expressions. */
const STATED_FOR: Readonly<Record<string, string>> = {
  InternetDown: '1m',
  PublicSiteDown: '5m',
  VolSyncBackupStale: '6h',
  NasDiskUnhealthy: '10m',
  NasRaidDegraded: '10m',
  NasVolumeAlmostFull: '1h',
  NasMetricsDown: '30m',
  HypervisorHostDown: '5m',
  HypervisorStorageAlmostFull: '30m',
  HypervisorMetricsDown: '30m',
};

let repo: Repo;
let dir: string;
beforeAll(async () => {
  repo = await loadRepo();
  dir = mkdtempSync(join(tmpdir(), 'promtool-'));
  for (const pr of prometheusRules(repo)) writeFileSync(join(dir, `${pr.name}.rules.yaml`), stringify({ groups: pr.groups }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface TestFile {
  rule_files: string[];
  tests: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[];
}
const testFiles = () => readdirSync(TESTS_DIR).filter((f) => f.endsWith('.test.yaml'));
const readTest = (f: string) => parse(readFileSync(join(TESTS_DIR, f), 'utf8')) as TestFile;

describe('alert rules', () => {
  it('declare every alert monitoring/README.md requires, with its severity', () => {
    const rules = alertRules(repo);
    const byName = new Map(rules.map((r) => [r.alert, r]));
    for (const alert of REQUIRED_ALERTS) {
      expect(byName.get(alert), `${alert} is missing`).toBeDefined();
      expect(byName.get(alert)!.labels.severity, alert).toBe(WARNING_ALERTS.includes(alert) ? 'warning' : 'critical');
    }
    const gateway = rules.filter((r) => r.alert.startsWith('AppGateway'));
    expect(new Set(gateway.map((r) => r.labels.severity))).toEqual(new Set(['critical', 'warning']));
    expect(gateway.every((r) => r.labels.namespace === 'app-a')).toBe(true);
    expect(byName.get('Watchdog')?.expr).toBe('vector(1)');
  });

  it('hold for the durations the alert table states (an emptied or changed `for` fires sooner or later than the table says)', () => {
    const byName = new Map(alertRules(repo).map((r) => [r.alert, r]));
    for (const [alert, hold] of Object.entries(STATED_FOR)) expect((byName.get(alert) as { for?: string } | undefined)?.for, alert).toBe(hold);
  });

  it('each have a promtool test that fires it and one that proves it stays quiet', () => {
    const fires = new Set<string>();
    const quiet = new Set<string>();
    for (const f of testFiles()) {
      for (const t of readTest(f).tests) for (const a of t.alert_rule_test ?? []) (a.exp_alerts?.length ? fires : quiet).add(a.alertname);
    }
    for (const rule of alertRules(repo)) {
      expect(fires.has(rule.alert), `${rule.alert} has no test where it fires`).toBe(true);
      if (rule.alert !== 'Watchdog') expect(quiet.has(rule.alert), `${rule.alert} has no test where it stays quiet`).toBe(true);
    }
  });

  it.skipIf(!hasPromtool)('pass promtool check rules', async () => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.rules.yaml'));
    const run = await exec('promtool', ['check', 'rules', ...files], { cwd: dir });
    expect(run.code, run.stdout + run.stderr).toBe(0);
  });

  // Each file a promtool process of its own, side by side: one rule file's tests take up to 3 s of one core.
  (hasPromtool ? it.concurrent : it.skip).for(testFiles())('pass promtool test rules %s', async (file, { expect }) => {
    writeFileSync(join(dir, file), readFileSync(join(TESTS_DIR, file)));
    const run = await exec('promtool', ['test', 'rules', file], { cwd: dir });
    expect(run.code, run.stdout + run.stderr).toBe(0);
  });

  it.skipIf(!hasPromtool)('promtool really fails a wrong expectation (the harness bites)', async () => {
    const broken = readFileSync(join(TESTS_DIR, 'nas.test.yaml'), 'utf8').replace(
      'eval_time: 11m\n        alertname: NasDiskUnhealthy',
      'eval_time: 8m\n        alertname: NasDiskUnhealthy',
    );
    writeFileSync(join(dir, 'broken.test.yaml'), broken);
    const run = await exec('promtool', ['test', 'rules', 'broken.test.yaml'], { cwd: dir });
    expect(run.code).not.toBe(0);
  });
});

describe('dashboard queries', () => {
  it.skipIf(!hasPromtool)("parse with promtool's real PromQL parser", async () => {
    const { dashboards, panelQueries } = await import('../../model/monitoring/dashboards.ts');
    const queries = dashboards(repo).flatMap((d) => panelQueries(d).map((q) => ({ ...q, dashboard: d.key })));
    expect(queries.length).toBeGreaterThan(25);
    // Each query becomes a recording rule, so promtool parses and type-checks it as Prometheus would.
    const rules = { groups: [{ name: 'dashboard-queries', rules: queries.map((q, i) => ({ record: `dashboard:query_${i}`, expr: q.expr })) }] };
    writeFileSync(join(dir, 'dashboards.rules.yaml'), stringify(rules));
    const run = await exec('promtool', ['check', 'rules', 'dashboards.rules.yaml'], { cwd: dir });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    // And the check bites: a broken query fails.
    writeFileSync(
      join(dir, 'broken-dashboards.rules.yaml'),
      stringify({ groups: [{ name: 'x', rules: [{ record: 'dashboard:broken', expr: 'rate(up[5m]' }] }] }),
    );
    expect((await exec('promtool', ['check', 'rules', 'broken-dashboards.rules.yaml'], { cwd: dir })).code).not.toBe(0);
  });
});
