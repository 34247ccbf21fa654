/** Prometheus/Alertmanager duration ("1h30m", "5m", "90s") in ms; NaN when malformed. */
export function durationMs(text: unknown): number {
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000, y: 31_536_000_000 };
  if (typeof text !== 'string' || !/^(\d+(ms|s|m|h|d|w|y))+$/.test(text)) return NaN;
  let total = 0;
  for (const [, n, unit] of text.matchAll(/(\d+)(ms|s|m|h|d|w|y)/g)) total += Number(n) * units[unit!]!;
  return total;
}
