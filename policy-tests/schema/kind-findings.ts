/**
 * What the API server refuses of two kinds beyond their schemas: a ConfigMap
 * or Secret whose data is over 1 MiB, and a CronJob whose schedule or time
 * zone its parser does not read.
 */
import type { Finding } from '../model/core/findings.ts';
import { findingAt, type Resource } from '../model/core/manifest.ts';
import { scalarText } from '../model/core/text.ts';
import { cronScheduleProblem, timeZoneProblem } from './cron.ts';

/** The API server refuses a ConfigMap or Secret whose data (keys and values, base64 decoded) exceeds 1 MiB. */
export const MAX_DATA_BYTES = 1024 * 1024;

/** A ConfigMap's or Secret's data over the API server's limit. */
export function objectSizeFindings(resource: Resource): Finding[] {
  const o = resource.object as { data?: unknown; binaryData?: unknown; stringData?: unknown };
  const entries = (value: unknown) => (value && typeof value === 'object' ? Object.entries(value as Record<string, unknown>) : []);
  const text = (k: string, v: unknown) => Buffer.byteLength(k) + Buffer.byteLength(typeof v === 'string' ? v : scalarText(v ?? ''));
  const base64 = (k: string, v: unknown) => Buffer.byteLength(k) + Buffer.from(typeof v === 'string' ? v : '', 'base64').length;
  const isSecret = resource.kind === 'Secret';
  const bytes =
    entries(o.data).reduce((sum, [k, v]) => sum + (isSecret ? base64(k, v) : text(k, v)), 0) +
    entries(o.binaryData).reduce((sum, [k, v]) => sum + base64(k, v), 0) +
    entries(o.stringData).reduce((sum, [k, v]) => sum + text(k, v), 0);
  if (bytes <= MAX_DATA_BYTES) return [];
  return [
    findingAt(resource, ['kind'], {
      check: 'object-size',
      message: `${resource.apiVersion}/${resource.kind}: its data is ${bytes.toLocaleString('en-US')} bytes, over the API server's limit of 1 MiB (${MAX_DATA_BYTES.toLocaleString('en-US')} bytes)`,
      fix: 'split the data, or mount it from a volume instead',
    }),
  ];
}

/** A CronJob's schedule and time zone, in the dialect the API server parses them with. */
export function cronJobFindings(resource: Resource): Finding[] {
  const spec = (resource.object.spec ?? {}) as { schedule?: unknown; timeZone?: unknown };
  const out: Finding[] = [];
  const schedule = typeof spec.schedule === 'string' ? cronScheduleProblem(spec.schedule) : undefined;
  if (schedule)
    out.push(
      findingAt(resource, ['spec', 'schedule'], {
        check: 'cron-schedule',
        message: `batch/v1/CronJob: schedule "${String(spec.schedule)}": ${schedule}`,
        fix: 'write five fields (minute 0-59, hour 0-23, day 1-31, month 1-12, day of week 0-6) or a descriptor such as @daily, and put the zone in spec.timeZone',
      }),
    );
  const zone = typeof spec.timeZone === 'string' ? timeZoneProblem(spec.timeZone) : undefined;
  if (zone)
    out.push(
      findingAt(resource, ['spec', 'timeZone'], {
        check: 'cron-schedule',
        message: `batch/v1/CronJob: timeZone ${JSON.stringify(spec.timeZone)}: ${zone}`,
        fix: 'name an IANA time zone, such as Europe/Berlin or Etc/UTC',
      }),
    );
  return out;
}
