/**
 * CronJob schedules and time zones as the Kubernetes API server reads them:
 * robfig/cron's standard parser (five fields, or a descriptor such as @daily
 * or @every 1h), no TZ= or CRON_TZ= prefix (the API server refuses them; use
 * spec.timeZone), and an IANA time-zone name. Field ranges and syntax are
 * checked by cron-parser; the checks here are where Kubernetes is stricter.
 */
import { createRequire } from 'node:module';
import { outcomeStore, packageVersion } from '../model/stores/outcome-store.ts';

/**
 * What a schedule or a zone came to before, keyed by cron-parser's version, the runtime (its ICU zones) and the
 * text: a warm run whose CronJobs did not change loads neither cron-parser nor the zone list.
 */
const cronOutcomes = outcomeStore<{ problem: string | null }>('cron', () => packageVersion('cron-parser'));

type CronParser = typeof import('cron-parser');
let parser: CronParser | undefined;
const cronParser = (): CronParser => (parser ??= createRequire(import.meta.url)('cron-parser') as CronParser);

/** A result kept in the warm-start store under `kind` and `text`, computed where the store has none. */
function remembered(kind: string, text: string, compute: () => string | undefined): string | undefined {
  const known = cronOutcomes.get([kind, text]);
  if (known) return known.problem ?? undefined;
  const problem = compute();
  cronOutcomes.set([kind, text], { problem: problem ?? null });
  return problem;
}

const DESCRIPTORS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);
/** Go's time.ParseDuration, which @every takes: one or more number-unit pairs. */
const GO_DURATION = /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/;
/** What robfig/cron's fields accept: numbers and * / , - ?, and names in the month and day-of-week fields only. */
const NUMERIC = /^[0-9*/,?-]+$/;
const FIELD_SYNTAX = [
  NUMERIC,
  NUMERIC,
  NUMERIC,
  /^([0-9*/,?-]|JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC)+$/i,
  /^([0-9*/,?-]|SUN|MON|TUE|WED|THU|FRI|SAT)+$/i,
];
const DAY_OF_WEEK_NAMES = /^(SUN|MON|TUE|WED|THU|FRI|SAT)$/i;

/** Why Kubernetes would refuse `schedule`, or undefined when it accepts it. */
export function cronScheduleProblem(schedule: string): string | undefined {
  return remembered('schedule', schedule, () => scheduleProblem(schedule));
}

function scheduleProblem(schedule: string): string | undefined {
  const text = schedule.trim();
  if (/^(CRON_)?TZ=/.test(text)) return 'a TZ= or CRON_TZ= prefix is refused since Kubernetes 1.27; set spec.timeZone';
  if (text.startsWith('@every '))
    return GO_DURATION.test(text.slice(7).trim()) ? undefined : `"${text.slice(7).trim()}" is not a duration (@every takes a Go duration such as 1h30m)`;
  if (text.startsWith('@')) return DESCRIPTORS.has(text) ? undefined : `unknown descriptor ${text}; one of ${[...DESCRIPTORS].join(', ')} or @every <duration>`;
  const fields = text.split(/\s+/);
  if (fields.length !== 5) return `${fields.length} fields; Kubernetes takes exactly five (minute hour day-of-month month day-of-week)`;
  const odd = fields.find((f, i) => !FIELD_SYNTAX[i]!.test(f));
  if (odd !== undefined) return `"${odd}" uses syntax Kubernetes' cron does not know (L, W and # are not supported)`;
  // robfig/cron counts days of the week 0-6; cron-parser also takes 7.
  const dow = fields[4]!.split(/[,/-]/).filter((p) => p !== '*' && p !== '?' && !DAY_OF_WEEK_NAMES.test(p));
  if (dow.some((p) => Number(p) > 6)) return `day of week "${fields[4]}" is out of range 0-6 (0 is Sunday)`;
  try {
    cronParser().CronExpressionParser.parse(text);
  } catch (err) {
    const message = (err as Error).message;
    // Kubernetes accepts a day that no month has (31 in February); the job then never runs.
    if (/explicit day of month/.test(message)) return `"${fields[2]} ${fields[3]}" names a day that month never has, so the job never runs`;
    return message.replace(/^Constraint error, got value (\S+) expected range (\S+)$/, 'value $1 is out of range $2');
  }
  return undefined;
}

/** Why Kubernetes would refuse `timeZone`, or undefined for an IANA name it knows. */
export function timeZoneProblem(timeZone: string): string | undefined {
  if (timeZone === 'Local' || timeZone === '') return `"${timeZone}" is not allowed; name an IANA time zone such as Europe/Berlin or Etc/UTC`;
  return remembered('zone', timeZone, () => (knownZones().has(timeZone) ? undefined : `"${timeZone}" is not an IANA time zone`));
}

/** The runtime's IANA zones, listed once per process (ICU builds the list afresh on every call). */
let zones: Set<string> | undefined;
const knownZones = (): Set<string> => (zones ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC', 'Etc/UTC']));
