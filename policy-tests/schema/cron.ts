/**
 * CronJob schedules and time zones as the Kubernetes API server reads them:
 * robfig/cron's standard parser (five fields, or a descriptor such as @daily
 * or @every 1h), no TZ= or CRON_TZ= prefix (the API server refuses them; use
 * spec.timeZone), and an IANA time-zone name. The five fields are robfig's
 * (model/core/time.ts); the checks here are what Kubernetes adds.
 */
import { fiveFieldProblem, goDurationMs, isZoneName, NEVER_FIRES } from '../model/core/time.ts';
import { outcomeStore, packageVersion } from '../model/stores/outcome-store.ts';

/**
 * What a schedule or a zone came to before, keyed by cron-parser's version, the runtime (its ICU zones) and the
 * text: a warm run whose CronJobs did not change loads neither cron-parser nor the zone list.
 */
const cronOutcomes = outcomeStore<{ problem: string | null }>('cron', () => packageVersion('cron-parser'));

/** A result kept in the warm-start store under `kind` and `text`, computed where the store has none. */
function remembered(kind: string, text: string, compute: () => string | undefined): string | undefined {
  const known = cronOutcomes.get([kind, text]);
  if (known) return known.problem ?? undefined;
  const problem = compute();
  cronOutcomes.set([kind, text], { problem: problem ?? null });
  return problem;
}

const DESCRIPTORS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

/** Why Kubernetes would refuse `schedule`, or undefined when it accepts it. */
export function cronScheduleProblem(schedule: string): string | undefined {
  return remembered('schedule', schedule, () => scheduleProblem(schedule));
}

function scheduleProblem(schedule: string): string | undefined {
  const text = schedule.trim();
  if (/^(CRON_)?TZ=/.test(text)) return 'a TZ= or CRON_TZ= prefix is refused since Kubernetes 1.27; set spec.timeZone';
  if (text.startsWith('@every '))
    return goDurationMs(text.slice(7).trim()) !== undefined
      ? undefined
      : `"${text.slice(7).trim()}" is not a duration (@every takes a Go duration such as 1h30m)`;
  if (text.startsWith('@')) return DESCRIPTORS.has(text) ? undefined : `unknown descriptor ${text}; one of ${[...DESCRIPTORS].join(', ')} or @every <duration>`;
  const problem = fiveFieldProblem(text, "Kubernetes' cron");
  // Kubernetes accepts a day that no month has (31 in February); the job then never runs.
  if (problem === NEVER_FIRES) return `"${text.split(/\s+/).slice(2, 4).join(' ')}" names a day that month never has, so the job never runs`;
  return problem;
}

/** Why Kubernetes would refuse `timeZone`, or undefined for an IANA name it knows. */
export function timeZoneProblem(timeZone: string): string | undefined {
  if (timeZone === 'Local' || timeZone === '') return `"${timeZone}" is not allowed; name an IANA time zone such as Europe/Berlin or Etc/UTC`;
  return remembered('zone', timeZone, () => (isZoneName(timeZone) ? undefined : `"${timeZone}" is not an IANA time zone`));
}
