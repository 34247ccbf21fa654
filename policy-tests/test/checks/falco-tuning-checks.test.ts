/**
 * Runtime security: the tuning fixtures each fail their exact check id on a broken copy of the real repository, the
 * real tuning file's exemptions act, and the condition parser understands Falco's grammar. The sensor's checks:
 * falco-checks.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { disjuncts, parseAppend, parseCondition, pinned } from '../../model/falco/expr.ts';
import { normalizeRuleName } from '../../model/falco/tuning.ts';
import { namedBy, namesExe } from '../../model/falco/exemptions.ts';
import { copyRepo, describeFindings, type RepoCopy } from '../support/helpers.ts';
import { describeMutations } from '../support/mutation-runner.ts';
import { dropAlternatives, editTuning, TUNING } from '../mutations/edits.ts';
import { falcoTuningMutations } from '../mutations/falco.ts';

describeMutations('the Falco tuning checks (falco/) bite on the tuning fixtures, appended to the real tuning file', falcoTuningMutations);

let copy: RepoCopy;
beforeAll(() => {
  copy = copyRepo();
});
afterEach(() => copy.reset());
afterAll(() => copy?.dispose());

describe('the real tuning file', () => {
  it('passes, with its exemptions, and with a scoped exemption of a generic image added to the hook the way the README shows', async () => {
    const text = copy.read(TUNING);
    for (const needle of ['quay.io/metallb/speaker', 'k8s.ns.name = metallb-system']) expect(text).toContain(needle);
    expect(describeFindings(await copy.gate())).toBe('(no findings)');
    // The README's second step: the image's facts say what its normal work trips, and where in its build that is read.
    // busybox is listed already (the programs its containers start): its trip joins that entry.
    const facts = copy.read('apps/media/facts/images.yaml');
    expect(facts).toContain('  - image: busybox\n    commands: [sh]\n');
    copy.write(
      'apps/media/facts/images.yaml',
      facts.replace(
        '  - image: busybox\n    commands: [sh]\n',
        '  - image: busybox\n    commands: [sh]\n    trips:\n      - { rule: Drop and execute new binary in container, process: truncate, exe: /usr/local/bin/truncate }\n',
      ),
    );
    editTuning(copy, (rules) =>
      rules.replace(
        'ghcr.io/cleanuparr/cleanuparr and k8s.ns.name = media)',
        'ghcr.io/cleanuparr/cleanuparr and k8s.ns.name = media)\n    or (proc.name = truncate and container.image.repository = docker.io/library/busybox\n      and proc.exepath startswith /usr/local/bin/ and k8s.ns.name = media)',
      ),
    );
    expect(describeFindings(await copy.gate())).toBe('(no findings)');
  });
});

describe('the tuning policy (security/falco/facts/tuning-policy.yaml)', () => {
  it('is refused at its key where a list or map it holds is of another shape, which would guard nothing', async () => {
    const POLICY = 'security/falco/facts/tuning-policy.yaml';
    const real = copy.read(POLICY);
    // One name where a list was meant: read as an empty list, no rule would be a boundary rule any more.
    copy.write(POLICY, real.replace(/^boundaryRules:\n(  - .*\n)+/m, 'boundaryRules: Linux Kernel Module Injection Detected\n'));
    const line = copy.read(POLICY).split('\n').indexOf('boundaryRules: Linux Kernel Module Injection Detected') + 1;
    const findings = await copy.gate();
    expect(findings.length, describeFindings(findings)).toBeGreaterThan(0);
    for (const f of findings) {
      expect(`${f.file}:${f.line}`, describeFindings(findings)).toBe(`${POLICY}:${line}`);
      expect(f.message).toMatch(/^boundaryRules must be a list of names: read as it is, what it guards would be guarded by nothing/);
    }
    copy.write(POLICY, real.replace(/^hookRules:\n/m, 'hookRules:\n  some_hook: 7\n'));
    expect((await copy.gate()).map((f) => f.message)).toContainEqual(expect.stringMatching(/^hookRules must map each name to a name/));
  });
});

describe('an exemption that can never act', () => {
  it('is refused when it names a process longer than the kernel keeps of its name', async () => {
    editTuning(copy, (rules) => rules.replace('proc.name = speaker and', 'proc.name = metallb-speaker-daemon and'));
    const findings = await copy.gate();
    expect(describeFindings(findings)).toContain("proc.name is the kernel's comm, cut to 15 characters (metallb-speaker)");
    expect(new Set(findings.map((f) => f.check))).toEqual(new Set(['falco-exemption-reachable']));
  });
});

describe('known noise', () => {
  it('is asked of a release that trips the rule only: Cleanuparr from 2.7.5 no longer chowns its binary, and needs no exemption', async () => {
    const deployment = 'apps/media/cleanuparr/deployment.yaml';
    dropAlternatives('proc.name = Cleanuparr')(copy);
    expect(describeFindings(await copy.gate())).toContain('falco-known-noise-tuned] container cleanuparr runs ghcr.io/cleanuparr/cleanuparr');
    copy.write(deployment, copy.read(deployment).replace('cleanuparr:2.4.6', 'cleanuparr:2.7.5'));
    expect((await copy.gate()).filter((f) => f.check === 'falco-known-noise-tuned')).toEqual([]);
  });
});

describe('Falco condition parser', () => {
  it('parses and/or/not, groups, comparisons, unary checks and list operators', () => {
    const e = parseCondition(
      'spawned_process and container and (proc.name in (bash, "sh") or proc.pname pmatch (/usr/bin)) and not fd.name startswith /data/ and k8s.ns.name exists and proc.aname[2]=systemd',
    );
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

  it('reads what an alternative names outright, field by field, and holds an executable to a named path or prefix', () => {
    const named = namedBy(
      parseCondition(
        'proc.name in (a, b) and proc.exepath startswith /opt/ and container.image.repository = x/y and k8s.ns.name = ns and fd.name startswith /etc/ and not proc.name = c and proc.pname pmatch (/usr)',
      ),
    );
    expect(named).toEqual({ processes: ['a', 'b'], exes: [{ value: '/opt/', prefix: true }], images: ['x/y'], namespaces: ['ns'] });
    expect(namesExe(named.exes[0]!, '/opt/bin/a')).toBe(true);
    expect(namesExe({ value: '/speaker', prefix: false }, '/speaker2')).toBe(false);
  });

  it('reports malformed conditions instead of guessing', () => {
    for (const bad of ['proc.name =', '(a and b', 'proc.name in (a, b', 'and and', 'proc.name', "proc.name = 'unterminated"])
      expect(() => parseCondition(bad), bad).toThrow();
  });

  it('normalizes rule names for the copy check', () => {
    expect(normalizeRuleName('Terminal shell in container (tuned)')).toContain(normalizeRuleName('Terminal shell in container'));
    expect(normalizeRuleName('Redirect STDOUT/STDIN to Network Connection in Container')).toBe('redirectstdoutstdintonetworkconnectionincontainer');
  });
});
