/**
 * The spec's silence test of the heartbeat path: silence alertname=Watchdog
 * for 25 minutes through the Alertmanager API, then watch the chat channel.
 *   npm run silence-test -- --alertmanager http://alertmanager.monitoring:9093
 */
import { argv } from 'zx';
import { HEARTBEAT_PERIOD_MS, HEARTBEAT_SILENCE_MS } from '../monitoring/watchdog/src/limits.ts';

export const SILENCE_MS = 25 * 60_000;

export interface SilencePlan {
  silenceId: string;
  endsAt: Date;
  /** DOWN comes 15 min after the last heartbeat, which was at most one heartbeat period before the silence. */
  downEarliest: Date;
  downLatest: Date;
  /** UP comes with the first heartbeat after the silence expires. */
  upBy: Date;
}

export async function silenceWatchdog(alertmanager: string, now = new Date(), fetchImpl: typeof fetch = fetch): Promise<SilencePlan> {
  const endsAt = new Date(now.getTime() + SILENCE_MS);
  const response = await fetchImpl(`${alertmanager.replace(/\/$/, '')}/api/v2/silences`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      matchers: [{ name: 'alertname', value: 'Watchdog', isRegex: false, isEqual: true }],
      startsAt: now.toISOString(),
      endsAt: endsAt.toISOString(),
      createdBy: 'watchdog-silence-test',
      comment: 'Heartbeat path drill: the external watchdog must post DOWN, then UP after this silence expires.',
    }),
  });
  if (!response.ok) throw new Error(`Alertmanager refused the silence: HTTP ${response.status} ${await response.text()}`);
  const { silenceID } = (await response.json()) as { silenceID: string };
  return {
    silenceId: silenceID,
    endsAt,
    downEarliest: new Date(now.getTime() + HEARTBEAT_SILENCE_MS - HEARTBEAT_PERIOD_MS),
    downLatest: new Date(now.getTime() + HEARTBEAT_SILENCE_MS + 60_000),
    upBy: new Date(endsAt.getTime() + HEARTBEAT_PERIOD_MS + 60_000),
  };
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) {
  const url = String(argv.alertmanager ?? argv.a ?? '');
  if (!url) {
    process.stderr.write('usage: npm run silence-test -- --alertmanager <url>\n');
    process.exit(1);
  }
  try {
    const plan = await silenceWatchdog(url);
    const t = (d: Date) => d.toISOString().replace('T', ' ').slice(0, 19) + 'Z';
    process.stdout.write(
      `silence ${plan.silenceId} on alertname=Watchdog until ${t(plan.endsAt)}\n` +
        `expect [WATCHDOG] DOWN between ${t(plan.downEarliest)} and ${t(plan.downLatest)}\n` +
        `expect [WATCHDOG] UP by ${t(plan.upBy)}\n` +
        `end it early: amtool silence expire ${plan.silenceId} --alertmanager.url=${url}\n`,
    );
  } catch (err) {
    process.stderr.write(`silence-test: ${(err as Error).message}\n`);
    process.exit(1);
  }
}
