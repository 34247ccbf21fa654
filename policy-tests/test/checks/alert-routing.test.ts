/**
 * The alert path with the real tools (Debian prometheus-alertmanager 0.25):
 * amtool checks the config and routes every Events-table row and every alert
 * rule to the receiver monitoring/README.md's Events table gives it; then a real Alertmanager on
 * 127.0.0.1 delivers to local capture servers, through a chat outage.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { alertmanagerConfigs, EVENTS_ROWS, expectedReceiver, inhibits, route, type AmConfig, type AmRoute } from '../../model/monitoring/alertmanager.ts';
import { alertRules } from '../../model/monitoring/prometheus-rules.ts';
import { PAYLOADS_DIR, SENDERS_FILE } from '../../model/monitoring/webhook-senders.ts';
import { fillText, type BodyFiller } from '../../model/monitoring/webhook-bodies.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';
import { silenceWatchdog } from '../../../scripts/watchdog-silence-test.ts';
import { exec, installed, stopped } from '../../../test-support/exec.ts';
import { skipForMissing } from '../../../test-support/missing-tool.ts';

const hasAmtool = !skipForMissing((await installed('amtool')) ? [] : ['amtool'], 'alert routing');
const FOUND_ALERTMANAGER = (await installed('alertmanager'))
  ? 'alertmanager'
  : (await installed('prometheus-alertmanager'))
    ? 'prometheus-alertmanager'
    : undefined;
const ALERTMANAGER = skipForMissing(FOUND_ALERTMANAGER ? [] : ['alertmanager'], 'Alertmanager end to end') ? undefined : FOUND_ALERTMANAGER;
if (!hasAmtool || !ALERTMANAGER)
  console.warn(
    '\n*** amtool or alertmanager not found: SKIPPING the routing tests. Install Debian package "prometheus-alertmanager" (bash .ci/run does). ***\n',
  );

let config: AmConfig;
let dir: string;
beforeAll(async () => {
  const repo = await loadRepo();
  config = alertmanagerConfigs(repo)[0]!.config;
  dir = mkdtempSync(join(tmpdir(), 'alertmanager-'));
  writeFileSync(join(dir, 'alertmanager.yml'), stringify(config));
  routingRows = [
    ...EVENTS_ROWS,
    ...alertRules(repo).map((r) => ({ name: `rule ${r.alert}`, labels: { alertname: r.alert, namespace: 'monitoring', ...r.labels } })),
  ];
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let routingRows: { name: string; labels: Record<string, string> }[] = [];

describe.skipIf(!hasAmtool)('amtool', () => {
  it('check-config accepts the configuration', async () => {
    const run = await exec('amtool', ['check-config', join(dir, 'alertmanager.yml')]);
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
        `--config.file=${join(dir, 'alertmanager.yml')}`,
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
    const file = join(dir, 'forms.yml');
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
      `--config.file=${join(dir, 'alertmanager.yml')}`,
      '--verify.receivers=chat',
      'alertname=ContainerOOMKilled',
      'severity=warning',
    ]);
    expect(run.code).not.toBe(0);
  });
});

/** A local HTTP endpoint recording what Alertmanager posts; it can be stopped and restarted on its port. */
class Capture {
  received: { body: string; auth?: string }[] = [];
  private server?: Server;
  port = 0;
  async start(port = 0): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        this.received.push({ body, auth: req.headers.authorization });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => this.server!.listen(port, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
  }
  async stop(): Promise<void> {
    await new Promise<void>((r) => {
      this.server?.closeAllConnections();
      this.server?.close(() => r());
    });
  }
  bodies(): string[] {
    return this.received.map((r) => r.body);
  }
}

/**
 * The repo's config pointed at local capture servers, with its timings scaled from minutes to seconds; the
 * heartbeat's to half a second, its repeat still twice its group interval, so a test waits one repeat, not three.
 */
function testConfig(base: AmConfig, chatUrlFile: string, watchdogUrl: string, tokenFile: string): AmConfig {
  const c = structuredClone(base);
  const scale = (r: AmRoute): void => {
    const heartbeat = r.receiver === 'watchdog';
    if (r.group_wait) r.group_wait = r.group_wait === '0s' ? '0s' : '1s';
    if (r.group_interval) r.group_interval = heartbeat ? '500ms' : '1s';
    if (r.repeat_interval) r.repeat_interval = heartbeat ? '1s' : '1h';
    r.routes?.forEach(scale);
  };
  scale(c.route);
  for (const receiver of c.receivers) {
    for (const s of receiver.slack_configs ?? []) s.api_url_file = chatUrlFile;
    for (const w of receiver.webhook_configs ?? []) {
      w.url = watchdogUrl;
      (w as { http_config?: { authorization?: { credentials_file?: string } } }).http_config!.authorization!.credentials_file = tokenFile;
    }
  }
  return c;
}

/** A real Alertmanager on a free port of 127.0.0.1 with `configFile`, ready; its URL and process. */
async function startAlertmanager(configFile: string, storage: string): Promise<{ url: string; process: ChildProcess }> {
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
  const url = `http://127.0.0.1:${port}`;
  const am = spawn(
    ALERTMANAGER!,
    [`--config.file=${configFile}`, `--storage.path=${storage}`, `--web.listen-address=127.0.0.1:${port}`, '--cluster.listen-address='],
    {
      stdio: 'ignore',
    },
  );
  // Ready when /-/ready says so; an Alertmanager that exits instead fails at once.
  while ((await fetch(`${url}/-/ready`).catch(() => undefined))?.status !== 200) {
    if (am.exitCode !== null) throw new Error(`${ALERTMANAGER} exited before it was ready on ${url}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return { url, process: am };
}

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
    const file = join(dir, 'inhibit.yml');
    writeFileSync(file, stringify({ route: { receiver: 'null' }, receivers: [{ name: 'null' }], inhibit_rules: rules }));
    am = await startAlertmanager(file, join(dir, 'inhibit-data'));
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

describe.skipIf(!ALERTMANAGER)('end to end through a real Alertmanager', () => {
  const chat = new Capture();
  const watchdog = new Capture();
  let am: ChildProcess;
  let amUrl = '';

  beforeAll(async () => {
    await chat.start();
    await watchdog.start();
    writeFileSync(join(dir, 'chat-url'), `http://127.0.0.1:${chat.port}/slack`);
    writeFileSync(join(dir, 'token'), 'heartbeat-token');
    writeFileSync(
      join(dir, 'e2e.yml'),
      stringify(testConfig(config, join(dir, 'chat-url'), `http://127.0.0.1:${watchdog.port}/heartbeat`, join(dir, 'token'))),
    );
    ({ url: amUrl, process: am } = await startAlertmanager(join(dir, 'e2e.yml'), join(dir, 'data')));
  });

  afterAll(async () => {
    // Alertmanager writes its snapshots as it stops; the folder is removed after (the outer afterAll).
    await stopped(am);
    await chat.stop();
    await watchdog.stop();
  });

  const post = (alerts: unknown[]) =>
    fetch(`${amUrl}/api/v2/alerts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(alerts) });
  const alert = (labels: Record<string, string>, resolved = false) => ({
    labels,
    annotations: { summary: `${labels.alertname} test` },
    startsAt: new Date(Date.now() - 60_000).toISOString(),
    ...(resolved ? { endsAt: new Date(Date.now() - 1000).toISOString() } : {}),
  });
  /** How many of Alertmanager's alert groups hold an alert of this name. */
  const groupsWith = async (alertname: string) => {
    const groups = (await (await fetch(`${amUrl}/api/v2/alerts/groups`)).json()) as { alerts: { labels: Record<string, string> }[] }[];
    return groups.filter((g) => g.alerts.some((a) => a.labels.alertname === alertname)).length;
  };
  /**
   * Alertmanager's own count of failed attempts to post to chat, from its /metrics: per request, so it moves at the
   * first refused attempt (alertmanager_notifications_failed_total moves only when a retry loop gives up, ten
   * seconds or more later).
   */
  const failedChatRequests = async () => {
    const metrics = await (await fetch(`${amUrl}/metrics`)).text();
    return Number(/^alertmanager_notification_requests_failed_total\{integration="slack"\} (\d+)/m.exec(metrics)?.[1] ?? NaN);
  };
  const has = (capture: Capture, ...needles: string[]) => capture.bodies().some((b) => needles.every((n) => b.includes(n)));

  it('delivers critical alerts to chat, and their resolved messages', async () => {
    expect((await post([alert({ alertname: 'InternetDown', severity: 'critical' })])).status).toBe(200);
    // With the alert's own summary: Alertmanager's default Slack text is empty (alert-chat-text).
    await expect.poll(() => has(chat, 'InternetDown', 'FIRING', 'InternetDown test')).toBe(true);
    await post([alert({ alertname: 'InternetDown', severity: 'critical' }, true)]);
    await expect.poll(() => has(chat, 'InternetDown', 'RESOLVED')).toBe(true);
  });

  it("delivers every sender's webhook payload (payloads/senders.yaml) as a one-shot event, with no resolved message", async () => {
    const senders = (parse(readFileSync(join(REPO_ROOT, SENDERS_FILE), 'utf8')) as { senders: { name: string; payload: string }[] }).senders;
    expect(senders.map((s) => s.name).sort()).toEqual(['backup-server', 'hypervisor', 'nas']);
    // Each body as its sender fills it in (DSM's event text; the hypervisor's multi-line report, quotes and all).
    const fillers: Record<string, BodyFiller> = { nas: 'dsm', hypervisor: 'proxmox-notify', 'backup-server': 'proxmox-notify' };
    const bodies = [
      ...new Map(senders.map((s) => [s.payload, fillText(readFileSync(join(REPO_ROOT, PAYLOADS_DIR, s.payload), 'utf8'), fillers[s.name]!)])).values(),
    ];
    const names: string[] = [];
    for (const body of bodies) {
      expect((await fetch(`${amUrl}/api/v2/alerts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status).toBe(200);
      names.push(...(JSON.parse(body) as { labels: { alertname: string } }[]).map((a) => a.labels.alertname));
    }
    expect(names.sort()).toEqual(['HypervisorNotification', 'NasNotification']);
    // Each message says what happened: the NAS's text, the hypervisor's title and its report.
    await expect.poll(() => has(chat, 'NasNotification', 'FIRING', 'Drive 3 in nas is degraded')).toBe(true);
    await expect.poll(() => has(chat, 'HypervisorNotification', 'FIRING', 'vzdump backup status', 'Permission denied')).toBe(true);
    const resolved = bodies.flatMap((body) =>
      (JSON.parse(body) as { labels: object; annotations: object }[]).map((a) => ({
        ...a,
        startsAt: new Date(Date.now() - 60_000).toISOString(),
        endsAt: new Date(Date.now() - 1000).toISOString(),
      })),
    );
    await post(resolved);
    // Alertmanager drops a resolved alert from its group only after the flush that would have sent the
    // resolved message: once the group is gone, that message was sent or never will be.
    for (const name of names) {
      await expect.poll(() => groupsWith(name)).toBe(0);
      expect(has(chat, name, 'RESOLVED')).toBe(false);
    }
  });

  it('holds two events of each sender as two alerts, and says both in chat; two pushes with one label set are one alert', async () => {
    const senders = (parse(readFileSync(join(REPO_ROOT, SENDERS_FILE), 'utf8')) as { senders: { name: string; payload: string }[] }).senders;
    const fillers: Record<string, BodyFiller> = { nas: 'dsm', hypervisor: 'proxmox-notify', 'backup-server': 'proxmox-notify' };
    const send = (body: string) => fetch(`${amUrl}/api/v2/alerts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const held = async (alertname: string) => {
      const alerts = (await (await fetch(`${amUrl}/api/v2/alerts?filter=${encodeURIComponent(`alertname="${alertname}"`)}`)).json()) as {
        annotations: { summary: string };
      }[];
      return alerts.map((a) => a.annotations.summary).sort();
    };
    // Alertmanager's premise, which alert-webhooks applies: an alert is its label set, so a second push with the same labels replaces the first.
    const same = (summary: string) => JSON.stringify([{ labels: { alertname: 'SameLabels', namespace: 'nas' }, annotations: { summary } }]);
    expect((await send(same('first event'))).status).toBe(200);
    expect((await send(same('second event'))).status).toBe(200);
    expect(await held('SameLabels')).toEqual(['second event']);
    for (const [payload, filler] of new Map(senders.map((s) => [s.payload, fillers[s.name]!]))) {
      const template = readFileSync(join(REPO_ROOT, PAYLOADS_DIR, payload), 'utf8');
      const bodies = [fillText(template, filler, 0), fillText(template, filler, 1)];
      for (const body of bodies) expect((await send(body)).status).toBe(200);
      const alerts = bodies.flatMap((b) => JSON.parse(b) as { labels: { alertname: string }; annotations: { summary: string; description?: string } }[]);
      const alertname = alerts[0]!.labels.alertname;
      expect(await held(alertname)).toEqual(alerts.map((a) => a.annotations.summary).sort());
      // Both events' words reach chat: the NAS's two texts, the hypervisor's two reports (told apart by their VMs).
      const words = filler === 'dsm' ? alerts.map((a) => a.annotations.summary) : ['VM 101', 'VM 102'];
      await expect.poll(() => has(chat, alertname, ...words)).toBe(true);
    }
  });

  it('refuses a hypervisor body whose report goes in unescaped, as alert-webhooks says, and takes it escaped', async () => {
    const body = (summary: string) =>
      fillText(JSON.stringify([{ labels: { alertname: 'HypervisorNotification' }, annotations: { summary } }]), 'proxmox-notify');
    const send = (text: string) => fetch(`${amUrl}/api/v2/alerts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
    expect((await send(body('{{ title }}: {{ message }}'))).status).toBe(400);
    expect((await send(body('{{ escape title }}: {{ escape message }}'))).status).toBe(200);
  });

  it('sends the Watchdog heartbeat to the watchdog endpoint with its token, and drops warnings', async () => {
    await post([alert({ alertname: 'Watchdog', severity: 'none' }), alert({ alertname: 'ContainerOOMKilled', severity: 'warning', namespace: 'media' })]);
    await expect.poll(() => watchdog.received.some((r) => r.body.includes('"Watchdog"') && r.auth === 'Bearer heartbeat-token')).toBe(true);
    // Heartbeats repeat on their own interval.
    await expect.poll(() => watchdog.received.length).toBeGreaterThan(1);
    expect(has(chat, 'ContainerOOMKilled')).toBe(false);
    expect(chat.bodies().some((b) => b.includes('"Watchdog"'))).toBe(false);
  });

  it('the silence-test script silences Watchdog for 25 minutes and plans DOWN and UP', async () => {
    const now = new Date();
    const plan = await silenceWatchdog(amUrl, now);
    const silences = (await (await fetch(`${amUrl}/api/v2/silences`)).json()) as {
      id: string;
      matchers: { name: string; value: string }[];
      endsAt: string;
      status: { state: string };
    }[];
    const created = silences.find((s) => s.id === plan.silenceId)!;
    expect(created.matchers).toEqual([expect.objectContaining({ name: 'alertname', value: 'Watchdog' })]);
    expect(Date.parse(created.endsAt) - now.getTime()).toBe(25 * 60_000);
    expect(created.status.state).toBe('active');
    expect(plan.downLatest.getTime() - now.getTime()).toBe(16 * 60_000);
    await fetch(`${amUrl}/api/v2/silence/${plan.silenceId}`, { method: 'DELETE' });
  });

  it('retries through a chat outage and delivers once chat is back', async () => {
    const port = chat.port;
    await chat.stop();
    const failedBefore = await failedChatRequests();
    expect(failedBefore).not.toBeNaN();
    await post([alert({ alertname: 'BackupJobStale', severity: 'critical', namespace: 'media', cronjob: 'sonarr-db-backup' })]);
    // Alertmanager has tried chat and failed: the outage is real before chat comes back.
    await expect.poll(failedChatRequests).toBeGreaterThan(failedBefore);
    expect(has(chat, 'BackupJobStale')).toBe(false);
    await chat.start(port);
    await expect.poll(() => has(chat, 'BackupJobStale', 'FIRING'), { interval: 500 }).toBe(true);
  });
});
