/**
 * Runtime security: each Falco check bites on a broken copy of the real
 * repository, the tuning fixtures each fail their exact check id, and the
 * condition parser understands Falco's grammar.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { disjuncts, parseAppend, parseCondition, pinned } from '../model/falco/expr.ts';
import { normalizeRuleName } from '../model/falco/tuning.ts';
import { checkIds, copyRepo, describeFindings, lineOf, type RepoCopy } from './helpers.ts';
import { appendTuning, componentMutations, fixture, fixtures, TUNING } from './falco-mutations.ts';

let copy: RepoCopy;
beforeAll(() => {
  copy = copyRepo();
});
afterEach(() => copy.reset());
afterAll(() => copy?.remove());

describe('tuning fixtures fail their exact check id, in the manifest at the right line', () => {
  it.each(fixtures)('%s fails %s', async (name, check, needle) => {
    appendTuning(copy, fixture(name));
    const findings = await copy.gate();
    expect(checkIds(findings), describeFindings(findings)).toEqual([check]);
    const lines = findings.map((f) => `${f.file}:${f.line}`);
    // The finding points into the ConfigMap, within the offending item (a few lines around the needle).
    const target = lineOf(copy, TUNING, needle);
    expect(lines.some((l) => { const n = Number(l.split(':')[1]); return l.startsWith(TUNING) && Math.abs(n - target) <= 4; }), `${describeFindings(findings)}\nexpected near line ${target}`).toBe(true);
  });

  it('the real tuning file passes, with its media, VPN and generic-image exemptions', async () => {
    const text = copy.read(TUNING);
    for (const needle of ['tdarr_node', 'qbittorrent', 'gluetun', 'docker.io/library/busybox']) expect(text).toContain(needle);
    expect(describeFindings(await copy.gate())).toBe('(no findings)');
  });
});

describe('component checks bite on a broken copy of the real repository', () => {

  it.each(componentMutations)('%s: %s', async (check, _why, mutate, needle) => {
    mutate(copy);
    const findings = await copy.gate();
    expect(checkIds(findings), describeFindings(findings)).toEqual([check]);
    if (needle) {
      const file = findings[0]!.file;
      expect(findings.map((f) => `${f.file}:${f.line}`), describeFindings(findings)).toContain(`${file}:${lineOf(copy, file, needle)}`);
    }
  });
});

describe('Falco condition parser', () => {
  it('parses and/or/not, groups, comparisons, unary checks and list operators', () => {
    const e = parseCondition('spawned_process and container and (proc.name in (bash, "sh") or proc.pname pmatch (/usr/bin)) and not fd.name startswith /data/ and k8s.ns.name exists and proc.aname[2]=systemd');
    expect(e.kind).toBe('and');
    const parts = pinned(e).map((p) => (p.kind === 'compare' || p.kind === 'list' || p.kind === 'unary' ? `${p.field} ${p.op}` : p.kind));
    expect(parts).toEqual(['macro', 'macro', 'or', 'not', 'k8s.ns.name exists', 'proc.aname[2] =']);
  });

  it('splits exemptions into alternatives and sees through the appended and not (...)', () => {
    const appended = parseAppend('and not ((proc.name = a and fd.name = /x) or (proc.name = b and fd.name = /y))');
    expect(appended.kind).toBe('and');
    if (appended.kind !== 'and' || appended.right.kind !== 'not') throw new Error('shape');
    expect(disjuncts(appended.right.expr)).toHaveLength(2);
  });

  it('reports malformed conditions instead of guessing', () => {
    for (const bad of ['proc.name =', '(a and b', 'proc.name in (a, b', 'and and', 'proc.name', "proc.name = 'unterminated"]) expect(() => parseCondition(bad), bad).toThrow();
  });

  it('normalizes rule names for the copy check', () => {
    expect(normalizeRuleName('Terminal shell in container (tuned)')).toContain(normalizeRuleName('Terminal shell in container'));
    expect(normalizeRuleName('Redirect STDOUT/STDIN to Network Connection in Container')).toBe('redirectstdoutstdintonetworkconnectionincontainer');
  });
});
