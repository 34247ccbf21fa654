/**
 * CronJob schedules and time zones as the Kubernetes API server reads them (pkg/apis/batch/validation,
 * validateCronJobSpec): robfig/cron's standard parser (model/cron/robfig.ts: five fields, or a descriptor such as
 * @daily or @every 1h), no TZ anywhere in a new schedule (the zone goes in spec.timeZone), and a time zone
 * validateTimeZone and Go's time.LoadLocation take. Each refusal in the API server's words. Beyond the API server:
 * a schedule it takes that names only days its months never have, on which the job never runs.
 */
import { neverFires, parseStandard } from '../model/cron/robfig.ts';
import { loadLocation } from '../model/core/time.ts';
import { outcomeStore } from '../model/stores/outcome-store.ts';

/**
 * What a schedule or a zone came to before, keyed by the runtime (its ICU zones) and the text: a warm run whose
 * CronJobs did not change builds no zone formatter.
 */
const cronOutcomes = outcomeStore<{ problem: string | null }>(
  'cron',
  () => `robfig-cron-3.0.1 icu-${process.versions.icu ?? ''} tz-${process.versions.tz ?? ''}`,
);

/** A result kept in the warm-start store under `kind` and `text`, computed where the store has none. */
function remembered(kind: string, text: string, compute: () => string | undefined): string | undefined {
  const known = cronOutcomes.get([kind, text]);
  if (known) return known.problem ?? undefined;
  const problem = compute();
  cronOutcomes.set([kind, text], { problem: problem ?? null });
  return problem;
}

/** Why Kubernetes would refuse `schedule`, or undefined when it accepts it. */
export function cronScheduleProblem(schedule: string): string | undefined {
  return remembered('schedule', schedule, () => scheduleProblem(schedule));
}

function scheduleProblem(schedule: string): string | undefined {
  if (schedule === '') return 'Required value';
  const parsed = parseStandard(schedule);
  const problems = parsed.ok ? [] : [parsed.error];
  // validateScheduleFormat on a create (Argo CD's apply of a new CronJob): no TZ anywhere in the schedule.
  if (schedule.includes('TZ')) problems.push('cannot use TZ or CRON_TZ in schedule, use timeZone field instead');
  if (problems.length) return problems.join('; ');
  if (parsed.ok && neverFires(parsed.schedule)) return 'it names only days its months never have: the API server takes it, and the job never runs';
  return undefined;
}

/**
 * validateTimeZone's rule for each part of a name (the tz database's theory.html#naming, with the digits and `+`
 * of its legacy names).
 */
const TIME_ZONE_PART = /^[A-Za-z.\-_0-9+]{1,14}$/;

/** Why Kubernetes would refuse `timeZone` (validateTimeZone), or undefined where it takes it. */
export function timeZoneProblem(timeZone: string): string | undefined {
  return remembered('zone', timeZone, () => zoneProblem(timeZone));
}

function zoneProblem(timeZone: string): string | undefined {
  if (timeZone === '') return 'timeZone must be nil or non-empty string';
  if (timeZone.split('/').some((part) => part === '.' || part === '..' || part.startsWith('-') || !TIME_ZONE_PART.test(part)))
    return `unknown time zone ${timeZone}`;
  const problems: string[] = [];
  if (timeZone.toLowerCase() === 'local') problems.push('timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones');
  const loaded = loadLocation(timeZone);
  if (!loaded.ok) problems.push(loaded.error);
  return problems.length ? problems.join('; ') : undefined;
}
