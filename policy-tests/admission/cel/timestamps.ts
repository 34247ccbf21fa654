/**
 * A timestamp as cel-go prints it: `string(t)` is Go's time.Format(RFC3339Nano) in the location the time was
 * parsed with, so a date-time field written `2011-08-18T19:03:37.01+01:00` prints with its `+01:00` (the engine's
 * timestamps are UTC instants and print `...18:03:37.010Z`). The text a schema's date-time value came from is
 * kept beside the value the rule sees; a timestamp the rule computed (`t + d`) prints in UTC, where cel-go would
 * keep the location: not judged differently by any rule that compares instants.
 */
const parsedFrom = new WeakMap<object, string>();

/** Remembers the text a timestamp value was read from. */
export function rememberTimestampText(value: unknown, text: string): void {
  if (typeof value === 'object' && value !== null) parsedFrom.set(value, text);
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/;

/** Go's RFC3339Nano of the time as it was parsed: trailing zeros of the fraction dropped, a zero offset as Z; undefined when the value was not read from text. */
export function goTimestampText(value: unknown): string | undefined {
  const text = typeof value === 'object' && value !== null ? parsedFrom.get(value) : undefined;
  const m = text === undefined ? null : RFC3339.exec(text);
  if (!m) return undefined;
  const [, date, time, fraction = '', zone = 'Z'] = m;
  const digits = fraction.replace(/0+$/, '');
  const offset = /^[Zz]$|^[+-]00:00$/.test(zone) ? 'Z' : zone;
  return `${date}T${time}${digits ? `.${digits}` : ''}${offset}`;
}
