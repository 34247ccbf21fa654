/** Prometheus/Alertmanager duration ("1h30m", "5m", "90s") in ms; NaN when malformed. */
export function durationMs(text: unknown): number {
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000, y: 31_536_000_000 };
  if (typeof text !== 'string' || !/^(\d+(ms|s|m|h|d|w|y))+$/.test(text)) return NaN;
  let total = 0;
  for (const [, n, unit] of text.matchAll(/(\d+)(ms|s|m|h|d|w|y)/g)) total += Number(n) * units[unit!]!;
  return total;
}

const GO_UNIT_SECONDS: Readonly<Record<string, number>> = { h: 3600, m: 60, s: 1, ms: 0.001, us: 0.000001, µs: 0.000001, ns: 1e-9 };

/** A Go duration (time.ParseDuration: `1h`, `30m`, `1h30m`, `1.5h`, `0`), as Kubernetes objects write them, in seconds; undefined when malformed. */
export function goDurationSeconds(text: string): number | undefined {
  if (text === '0') return 0;
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) return undefined;
  return parts.reduce((sum, [, n, unit]) => sum + Number(n) * GO_UNIT_SECONDS[unit!]!, 0);
}
