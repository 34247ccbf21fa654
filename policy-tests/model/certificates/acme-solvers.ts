/**
 * Which of an ACME issuer's solvers cert-manager uses for a name (v1.21.1, pkg/util/solverpicker `Pick`, with the
 * selectors of pkg/controller/acmeorders/selectors): among the solvers of a challenge type the CA offers for the
 * name, one whose selector matches the Order (its labels, which are the Certificate's) and the name; a solver with no
 * selector matches everything and is taken only when none was picked before it; of the others, the one matching the
 * name itself beats one matching its zone, the longer zone beats the shorter, and more labels beat fewer, the
 * earlier winning ties. None picked, and the Order fails: no certificate is issued.
 */
import { obj as dictOf } from '../core/dig.ts';

type Obj = Record<string, any>;

const obj = dictOf as (v: unknown) => Obj;
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/**
 * miekg/dns `Split`: where each label of a name starts. A dot escaped with a backslash is part of its label; the root
 * (".") has none.
 */
function labelStarts(name: string): number[] {
  if (name === '.' || name === '') return [];
  const starts = [0];
  for (let i = 0; i < name.length - 1; i++) {
    if (name[i] === '\\') i++;
    else if (name[i] === '.') starts.push(i + 1);
  }
  return starts;
}

/** miekg/dns `CountLabel`. */
export const countLabels = (name: string): number => labelStarts(name).length;

/** miekg/dns `CompareDomainName`: how many labels two names share from the right, compared without case, dots included. */
export function compareDomainNames(a: string, b: string): number {
  if (a === '.' || b === '.') return 0;
  const [la, lb] = [labelStarts(a), labelStarts(b)];
  if (la.length === 0 || lb.length === 0) return 0;
  const label = (s: string, starts: number[], i: number) => s.slice(starts[i], i + 1 < starts.length ? starts[i + 1] : s.length).toLowerCase();
  let n = 0;
  for (let i = la.length - 1, j = lb.length - 1; i >= 0 && j >= 0; i--, j--) {
    if (label(a, la, i) !== label(b, lb, j)) break;
    n++;
  }
  return n;
}

interface SelectorMatch {
  matches: boolean;
  labels: number;
  dnsNames: number;
  dnsZones: number;
}

/** The three selectors on one solver's selector: labels all present, the name listed, the name under a zone (the longest). */
function selectorMatch(selector: Obj, labels: Readonly<Record<string, string>>, domain: string): SelectorMatch {
  const required = Object.entries(obj(selector.matchLabels));
  // Upstream counts the labels up to the first that differs, and matches only when none does.
  const labelsOk = required.every(([k, v]) => labels[k] === v);
  const names = strings(selector.dnsNames);
  const zones = strings(selector.dnsZones);
  const zoneLabels = Math.max(0, ...zones.map((z) => (compareDomainNames(z, domain) === countLabels(z) ? countLabels(z) : 0)));
  const namesOk = names.length === 0 || names.includes(domain);
  const zonesOk = zones.length === 0 || zoneLabels > 0;
  return {
    matches: labelsOk && namesOk && zonesOk,
    labels: labelsOk ? required.length : 0,
    dnsNames: names.length > 0 && names.includes(domain) ? 1 : 0,
    dnsZones: zones.length > 0 ? zoneLabels : 0,
  };
}

/** Whether the later match `b` is more specific than the picked `a`, as Pick weighs them. */
function moreSpecific(a: SelectorMatch, b: SelectorMatch): boolean {
  if (a.dnsNames > 0 !== b.dnsNames > 0) return b.dnsNames > 0;
  if (a.dnsNames > 0) return b.dnsZones !== a.dnsZones ? b.dnsZones > a.dnsZones : b.labels > a.labels;
  if (a.dnsZones > 0 !== b.dnsZones > 0) return b.dnsZones > 0;
  if (a.dnsZones > 0) return b.dnsZones !== a.dnsZones ? b.dnsZones > a.dnsZones : b.labels > a.labels;
  return b.labels > a.labels;
}

/** The challenge types an ACME CA offers for a name cert-manager can solve: DNS-01 alone for a wildcard. */
export const offeredChallenges = (domain: string): string[] => (domain.startsWith('*.') ? ['dns-01'] : ['http-01', 'dns-01']);

/**
 * Pick: the index of the solver cert-manager uses for `domain` (a wildcard spelt `*.name`), given the challenge types
 * the CA offers and the Order's labels, with the challenge type it solves; undefined where none is picked.
 */
export function pickSolver(
  domain: string,
  challenges: readonly string[],
  solvers: unknown,
  labels: Readonly<Record<string, string>>,
): { index: number; challenge: string } | undefined {
  let picked: { index: number; challenge: string; match: SelectorMatch } | undefined;
  (Array.isArray(solvers) ? solvers : []).forEach((raw: unknown, index: number) => {
    const solver = obj(raw);
    const challenge = challenges.find((c) => (c === 'http-01' && solver.http01 != null) || (c === 'dns-01' && solver.dns01 != null));
    if (!challenge) return;
    if (solver.selector == null) {
      if (!picked) picked = { index, challenge, match: { matches: true, labels: 0, dnsNames: 0, dnsZones: 0 } };
      return;
    }
    const match = selectorMatch(obj(solver.selector), labels, domain);
    if (match.matches && (!picked || moreSpecific(picked.match, match))) picked = { index, challenge, match };
  });
  return picked && { index: picked.index, challenge: picked.challenge };
}
