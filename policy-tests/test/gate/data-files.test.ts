/**
 * The data files Helm and the gate's own checks read, on a copy of the real repository: one that does not parse is a
 * loader finding at its line, whether or not a chart is at hand, and what the checks that read it then say follows
 * from it (folded under it); an Application's helm.values Helm refuses is a finding at its line; and a values file of
 * several documents, which Helm 4 merges, is read as Helm reads it, not refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatFinding, formatLocation } from '../../model/core/findings.ts';
import { copyRepo, describeFindings, lineOf, type RepoCopy } from '../support/helpers.ts';

const VALUES = 'monitoring/tempo/values.yaml';
const TARGETS = 'apps/media/facts/backup-targets.yaml';
const LOKI = 'monitoring/loki/application.yaml';

let copy: RepoCopy;
beforeAll(() => {
  copy = copyRepo();
});
afterAll(() => copy.dispose());

describe('a data file that does not parse', () => {
  it('is a finding at its line in the words of its reader, with what follows from it folded under it; helm.values too', async () => {
    copy.write(VALUES, `${copy.read(VALUES)}extra:\n\tretention: 24h\n`);
    copy.write(TARGETS, `${copy.read(TARGETS)}broken: [\n`);
    copy.write(LOKI, copy.read(LOKI).replace(/^( +)valueFiles:/m, '$1values: |\n$1  extra:\n$1  \tx: 1\n$1valueFiles:'));
    const [tab, retention, bracket] = [lineOf(copy, LOKI, '\tx: 1'), lineOf(copy, VALUES, '\tretention'), lineOf(copy, TARGETS, 'broken: [')];
    // Placed in the file: the block's indentation before the tab.
    const tabCol = copy.read(LOKI).split('\n')[tab - 1]!.indexOf('\t') + 1;
    const findings = await copy.gate().finally(() => copy.reset());
    const causes = findings.filter((f) => f.causedBy === undefined);
    expect(causes.map(formatFinding), describeFindings(findings)).toEqual([
      // The unclosed bracket is found where the text ends: the line after it.
      expect.stringMatching(new RegExp(`^${TARGETS}:${bracket + 1}:1 loader \\[yaml-syntax\\] .*; the checks that read this file judge without it`)),
      expect.stringMatching(
        new RegExp(
          `^${LOKI}:${tab}:${tabCol} policy \\[argocd-applied-files\\] Helm refuses the values Application loki gives its source in helm\\.values .*: Tabs are not allowed as indentation; the source does not render`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^${VALUES}:${retention}:1 loader \\[yaml-syntax\\] Tabs are not allowed as indentation; Helm refuses this values file, so no chart source that lists it renders`,
        ),
      ),
    ]);
    // The backup jobs the targets file no longer declares, and the retention the values file no longer sets, follow.
    const followers = (cause: string) => findings.filter((f) => f.causedBy?.startsWith(`${cause}:`));
    expect(new Set(followers(TARGETS).map((f) => f.check))).toEqual(new Set(['backup-jobs']));
    expect(followers(VALUES).map((f) => f.check)).toContain('monitoring-retention');
    const targets = causes.find((f) => f.file === TARGETS)!;
    expect(targets.consequences).toBe(followers(TARGETS).length);
    expect(followers(TARGETS).every((f) => f.causedBy === formatLocation(targets))).toBe(true);
  });
});

describe("an Application's helm.values", () => {
  it('holding a plain scalar YAML 1.1 reads otherwise is a finding at its line and column, as in a values file; quoted, none; a quoted one on the line of its key placed there', async () => {
    const text = copy.read(LOKI);
    const withValues = (value: string) => text.replace(/^( +)valueFiles:/m, `$1values: |\n$1  extra:\n$1    flag: ${value}\n$1valueFiles:`);
    try {
      copy.write(LOKI, withValues('off'));
      const [line, indent] = [
        lineOf(copy, LOKI, 'flag: off'),
        copy
          .read(LOKI)
          .split('\n')
          .find((l) => l.includes('flag: off'))!
          .indexOf('off'),
      ];
      const findings = await copy.gate();
      expect(findings.map(formatFinding), describeFindings(findings)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^${LOKI}:${line}:${indent + 1} policy \\[argocd-applied-files\\] in the helm\\.values Application loki gives its source, which Helm reads as YAML 1\\.1: plain off is the boolean false`,
          ),
        ),
      ]);
      copy.write(LOKI, withValues('"off"'));
      expect((await copy.gate()).map(formatFinding)).toEqual([]);
      // A quoted helm.values on its key's line: the scalar is placed there, after the quote.
      copy.write(LOKI, text.replace(/^( +)valueFiles:/m, '$1values: "flag: 0755"\n$1valueFiles:'));
      const quoted = copy
        .read(LOKI)
        .split('\n')
        .findIndex((l) => l.includes('flag: 0755'));
      expect((await copy.gate()).map(formatFinding)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^${LOKI}:${quoted + 1}:${copy.read(LOKI).split('\n')[quoted]!.indexOf('0755') + 1} policy \\[argocd-applied-files\\] .*plain 0755 is octal`,
          ),
        ),
      ]);
    } finally {
      copy.reset();
    }
  });
});

describe('a values file of several documents', () => {
  it('is read as Helm 4 reads it, merged: no finding, and a value in its second document judged at its line', async () => {
    const text = copy.read(VALUES);
    try {
      // The same values in two documents: the chart's persistence and what follows in the second.
      copy.write(VALUES, text.replace(/^persistence:/m, '---\npersistence:'));
      expect((await copy.gate()).map(formatFinding)).toEqual([]);
      // A value the second document sets wrong is judged, at its line there.
      copy.write(VALUES, text.replace(/^persistence:/m, '---\ntempo:\n  retention: 48h\npersistence:'));
      const findings = await copy.gate();
      expect(findings.map(formatFinding), describeFindings(findings)).toEqual([
        expect.stringMatching(new RegExp(`^${VALUES}:${lineOf(copy, VALUES, 'retention: 48h')}:\\d+ policy \\[monitoring-retention\\] .*48h`)),
      ]);
    } finally {
      copy.reset();
    }
  });
});
