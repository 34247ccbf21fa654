/**
 * The alert path end to end: a real Alertmanager (Debian prometheus-alertmanager 0.25) on 127.0.0.1 runs the
 * repository's configuration, its timings scaled to seconds, and delivers to local capture servers: critical alerts
 * and their resolution to chat, each webhook sender's events, the Watchdog heartbeat with its token, and through a
 * chat outage. Routing and inhibition are alert-routing.test.ts'.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { type AmConfig, type AmRoute } from '../../model/monitoring/alertmanager.ts';
import { PAYLOADS_DIR, SENDERS_FILE } from '../../model/monitoring/webhook-senders.ts';
import { fillText, type BodyFiller } from '../../model/monitoring/webhook-bodies.ts';
import { REPO_ROOT } from '../../model/repository/repo.ts';
import { silenceWatchdog } from '../../../scripts/watchdog-silence-test.ts';
import { stopped } from '../../../test-support/exec.ts';
import { ALERTMANAGER, startAlertmanager, useAlertmanagerLab } from '../support/alertmanager.ts';

const lab = useAlertmanagerLab();

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

describe.skipIf(!ALERTMANAGER)('end to end through a real Alertmanager', () => {
  const chat = new Capture();
  const watchdog = new Capture();
  let am: ChildProcess;
  let amUrl = '';

  beforeAll(async () => {
    await chat.start();
    await watchdog.start();
    writeFileSync(join(lab.dir, 'chat-url'), `http://127.0.0.1:${chat.port}/slack`);
    writeFileSync(join(lab.dir, 'token'), 'heartbeat-token');
    writeFileSync(
      join(lab.dir, 'e2e.yml'),
      stringify(testConfig(lab.config, join(lab.dir, 'chat-url'), `http://127.0.0.1:${watchdog.port}/heartbeat`, join(lab.dir, 'token'))),
    );
    ({ url: amUrl, process: am } = await startAlertmanager(join(lab.dir, 'e2e.yml'), join(lab.dir, 'data')));
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
