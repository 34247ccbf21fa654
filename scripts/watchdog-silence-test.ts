/**
 * The spec's silence test of the heartbeat path: silence alertname=Watchdog
 * for 25 minutes through the Alertmanager API, then watch the chat channel.
 *   npm run silence-test -- --alertmanager http://alertmanager.lan.example.net
 */
import { runCommand, UsageError, type CommandIo } from './lib/command.ts';
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
  let response: Response;
  try {
    response = await fetchImpl(`${alertmanager.replace(/\/$/, '')}/api/v2/silences`, {
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
  } catch (err) {
    throw new Error(`Alertmanager at ${alertmanager} gives no answer: fetch failed`, { cause: err });
  }
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

/** The command: places the silence and says what to expect when. */
export function silenceTestCommand(argv: string[], io?: CommandIo, fetchImpl: typeof fetch = fetch): Promise<number> {
  const print = io?.stdout ?? ((t: string) => process.stdout.write(t));
  return runCommand(
    {
      name: 'silence-test',
      usage: 'silence-test --alertmanager <url>',
      help: `Silences alertname=Watchdog for 25 minutes through Alertmanager's API, and
prints when the external watchdog must post DOWN and then UP in the chat.`,
      options: { alertmanager: { type: 'string', short: 'a' } },
      positionals: { min: 0, max: 0 },
      async run({ values }) {
        const url = values.alertmanager as string | undefined;
        if (!url) throw new UsageError('--alertmanager <url> is required');
        const plan = await silenceWatchdog(url, new Date(), fetchImpl);
        const t = (d: Date) => d.toISOString().replace('T', ' ').slice(0, 19) + 'Z';
        print(
          `silence ${plan.silenceId} on alertname=Watchdog until ${t(plan.endsAt)}\n` +
            `expect [WATCHDOG] DOWN between ${t(plan.downEarliest)} and ${t(plan.downLatest)}\n` +
            `expect [WATCHDOG] UP by ${t(plan.upBy)}\n` +
            `end it early: amtool silence expire ${plan.silenceId} --alertmanager.url=${url}\n`,
        );
        return 0;
      },
    },
    argv,
    io,
  );
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) process.exitCode = await silenceTestCommand(process.argv.slice(2));
