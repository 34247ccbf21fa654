/**
 * Semantic versions as Kubernetes' semver library parses them (blang/semver's
 * Parse, and the library's own normalizeAndParse) and orders them (SemVer
 * 2.0.0: numbers, then pre-release identifiers; build metadata ignored).
 */
export interface Semver {
  major: bigint;
  minor: bigint;
  patch: bigint;
  pre: string[];
  build: string[];
}

const NUMBER = /^(0|[1-9][0-9]*)$/;
const IDENT = /^[0-9A-Za-z-]+$/;

/** blang/semver.Parse: major.minor.patch[-pre][+build], no leading zeros, numeric pre-release parts without them either. */
export function parseSemver(s: string): Semver | undefined {
  const plus = s.indexOf('+');
  const build = plus >= 0 ? s.slice(plus + 1).split('.') : [];
  const rest = plus >= 0 ? s.slice(0, plus) : s;
  const dash = rest.indexOf('-');
  const pre = dash >= 0 ? rest.slice(dash + 1).split('.') : [];
  const core = (dash >= 0 ? rest.slice(0, dash) : rest).split('.');
  if (core.length !== 3 || !core.every((p) => NUMBER.test(p))) return undefined;
  if (!pre.every((p) => IDENT.test(p) && (!/^[0-9]+$/.test(p) || NUMBER.test(p)))) return undefined;
  if (!build.every((p) => IDENT.test(p))) return undefined;
  return { major: BigInt(core[0]!), minor: BigInt(core[1]!), patch: BigInt(core[2]!), pre, build };
}

/** normalizeAndParse: a v prefix, a missing minor or patch, and leading zeros are forgiven. */
export function parseSemverNormalized(s: string): Semver | undefined {
  const parts = s.replace(/^v/, '').split('.');
  const head = parts.slice(0, 2);
  const tail = parts.slice(2).join('.');
  const all = parts.length > 2 ? [...head, tail] : head;
  const trimmed = all.map((p) => {
    if (p.length <= 1) return p;
    const t = p.replace(/^0+/, '');
    return t.length === 0 || !/^[0-9]/.test(t) ? `0${t}` : t;
  });
  if (trimmed.length < 3) {
    if (/[+-]/.test(trimmed[trimmed.length - 1]!)) return undefined;
    while (trimmed.length < 3) trimmed.push('0');
  }
  return parseSemver(trimmed.join('.'));
}

export const formatSemver = (v: Semver): string =>
  `${v.major}.${v.minor}.${v.patch}${v.pre.length ? `-${v.pre.join('.')}` : ''}${v.build.length ? `+${v.build.join('.')}` : ''}`;

export function compareSemver(a: Semver, b: Semver): number {
  for (const k of ['major', 'minor', 'patch'] as const) if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
  if (!a.pre.length || !b.pre.length) return a.pre.length === b.pre.length ? 0 : a.pre.length ? -1 : 1;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const [x, y] = [a.pre[i]!, b.pre[i]!];
    if (x === y) continue;
    const [xn, yn] = [/^[0-9]+$/.test(x), /^[0-9]+$/.test(y)];
    if (xn && yn) return BigInt(x) < BigInt(y) ? -1 : 1;
    if (xn !== yn) return xn ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return Math.sign(a.pre.length - b.pre.length);
}
