/**
 * Alert routing with the real tools (Debian prometheus-alertmanager 0.25): amtool checks the config and routes every
 * Events-table row and every alert rule to the receiver monitoring/README.md's Events table gives it, reads matchers in
 * each form as the gate does, and a real Alertmanager mutes what the gate's inhibition says it mutes. Delivery through
 * a real Alertmanager is alert-delivery.test.ts'.
 */
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { EVENTS_ROWS, expectedReceiver, inhibits, route, type AmConfig } from '../../model/monitoring/alertmanager.ts';
import { alertRules } from '../../model/monitoring/prometheus-rules.ts';
import { exec, stopped } from '../../../test-support/exec.ts';
import { ALERTMANAGER, HAS_AMTOOL, startAlertmanager, useAlertmanagerLab } from '../support/alertmanager.ts';

const lab = useAlertmanagerLab();
let routingRows: { name: string; labels: Record<string, string> }[] = [];
beforeAll(() => {
  routingRows = [
    ...EVENTS_ROWS,
    ...alertRules(lab.repo).map((r) => ({ name: `rule ${r.alert}`, labels: { alertname: r.alert, namespace: 'monitoring', ...r.labels } })),
  ];
});

describe.skipIf(!HAS_AMTOOL)('amtool', () => {
  it('check-config accepts the configuration', async () => {
    const run = await exec('amtool', ['check-config', join(lab.dir, 'alertmanager.yml')]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
  });

  it('routes every Events row and every alert rule to the receiver the Events table gives it', async () => {
    expect(routingRows.length).toBeGreaterThan(EVENTS_ROWS.length + 30);
    const failures: string[] = [];
    for (const row of routingRows) {
      const expected = expectedReceiver(row.labels);
      const args = [
        'config',
        'routes',
        'test',
        `--config.file=${join(lab.dir, 'alertmanager.yml')}`,
        `--verify.receivers=${expected}`,
        ...Object.entries(row.labels).map(([k, v]) => `${k}=${v}`),
      ];
      const run = await exec('amtool', args);
      if (run.code !== 0) failures.push(`${row.name}: expected ${expected}, amtool says ${(run.stdout + run.stderr).trim()}`);
    }
    expect(failures).toEqual([]);
  });

  it("the gate's router reads matchers in each form the classic parser takes, and routes as amtool does", async () => {
    const forms = {
      route: {
        receiver: 'default',
        routes: [
          { receiver: 'braced', matchers: ['{team="db", severity=~"crit.*"}'] },
          { receiver: 'unquoted', matchers: ['team=web,severity!=info'] },
          { receiver: 'escaped', matchers: ['quote="say \\"hi\\""'] },
          { receiver: 'lines', matchers: ['team = "ops" ', 'env=~prod|stage'] },
        ],
      },
      receivers: ['default', 'braced', 'unquoted', 'escaped', 'lines'].map((name) => ({ name })),
    } as AmConfig;
    const file = join(lab.dir, 'forms.yml');
    writeFileSync(file, stringify(forms));
    const alerts: Record<string, string>[] = [
      { team: 'db', severity: 'critical' },
      { team: 'db', severity: 'warning' },
      { team: 'web', severity: 'warning' },
      { team: 'web', severity: 'info' },
      { quote: 'say "hi"' },
      { team: 'ops', env: 'stage' },
      { team: 'ops', env: 'dev' },
    ];
    const gate = alerts.map((labels) =>
      route(forms, labels)
        .map((r) => r.receiver)
        .join(','),
    );
    expect(new Set(gate).size, 'each route is taken by some alert, and the default by others').toBe(5);
    const amtool = await Promise.all(
      alerts.map(async (labels, i) => {
        const args = Object.entries(labels).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
        const run = await exec('amtool', ['config', 'routes', 'test', `--config.file=${file}`, `--verify.receivers=${gate[i]}`, ...args]);
        return run.code === 0 ? gate[i] : `${gate[i]}? amtool: ${(run.stdout + run.stderr).trim()}`;
      }),
    );
    expect(amtool).toEqual(gate);
  });

  it('the verification bites: a wrong expectation fails', async () => {
    const run = await exec('amtool', [
      'config',
      'routes',
      'test',
      `--config.file=${join(lab.dir, 'alertmanager.yml')}`,
      '--verify.receivers=chat',
      'alertname=ContainerOOMKilled',
      'severity=warning',
    ]);
    expect(run.code).not.toBe(0);
  });
});

describe.skipIf(!ALERTMANAGER)("the gate's inhibition agrees with a real Alertmanager", () => {
  const rules = [
    // The Watchdog (severity none) mutes warnings and critical alerts for good.
    { source_matchers: ['severity="none"'], target_matchers: ['severity=~"warning|critical"'] },
    // Only within one namespace: the Watchdog has none, so it mutes nothing here.
    { source_matchers: ['alertname="Watchdog"'], target_matchers: ['severity="info"'], equal: ['namespace'] },
    // Both sides match a critical alert: it does not mute itself, nor another critical one.
    { source_match: { severity: 'critical' }, target_match_re: { severity: 'critical|page' } },
  ];
  const alerts: Record<string, string>[] = [
    { alertname: 'Watchdog', severity: 'none' },
    { alertname: 'DiskFull', severity: 'critical', namespace: 'media' },
    { alertname: 'Slow', severity: 'warning', namespace: 'media' },
    { alertname: 'Note', severity: 'info', namespace: 'media' },
    { alertname: 'Paged', severity: 'page', namespace: 'media' },
  ];
  let am: { url: string; process: ChildProcess };
  beforeAll(async () => {
    const file = join(lab.dir, 'inhibit.yml');
    writeFileSync(file, stringify({ route: { receiver: 'null' }, receivers: [{ name: 'null' }], inhibit_rules: rules }));
    am = await startAlertmanager(file, join(lab.dir, 'inhibit-data'));
  });
  afterAll(async () => {
    await stopped(am.process);
  });

  it('mutes the same alerts the gate says each rule mutes while the others fire', async () => {
    const body = alerts.map((labels) => ({ labels, annotations: {}, startsAt: new Date(Date.now() - 60_000).toISOString() }));
    expect(
      (await fetch(`${am.url}/api/v2/alerts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).status,
    ).toBe(200);
    const gate = alerts
      .filter((target) => rules.some((rule) => alerts.some((source) => source !== target && inhibits(rule, source, target))))
      .map((a) => a.alertname!)
      .sort();
    expect(gate, 'the rules mute some alerts and leave others').toEqual(['DiskFull', 'Paged', 'Slow']);
    const suppressed = async () =>
      ((await (await fetch(`${am.url}/api/v2/alerts`)).json()) as { labels: Record<string, string>; status: { state: string } }[])
        .filter((a) => a.status.state === 'suppressed')
        .map((a) => a.labels.alertname!)
        .sort();
    await expect.poll(suppressed).toEqual(gate);
  });
});
