/**
 * Sync windows as Argo CD reads them. The matching cases follow TestSyncWindows_Matches and
 * TestSyncWindows_Matches_AND_Operator (argo-cd v3.5.1, pkg/apis/application/v1alpha1/types_test.go: the app
 * test-app, destination namespace default, server cluster1, name clusterName); the open-or-not cases follow
 * TestSyncWindows_Active's windows at fixed hours; the rest are what the same file's code says.
 */
import { describe, expect, it } from 'vitest';
import {
  breaksCanSync,
  openStretches,
  syncShare,
  windowMatches,
  windowProblems,
  YEAR,
  type SyncWindow,
  type WindowTarget,
} from '../../model/controller/sync-windows.ts';
import { goDurationMs } from '../../model/core/time.ts';

const window = (fields: Partial<SyncWindow>): SyncWindow => ({
  project: {} as SyncWindow['project'],
  at: [],
  index: 0,
  kind: 'allow',
  schedule: '* * * * *',
  duration: '1h',
  timeZone: '',
  applications: [],
  namespaces: [],
  clusters: [],
  andOperator: false,
  ...fields,
});
const testApp: WindowTarget = { name: 'test-app', namespace: 'default', server: 'cluster1', clusterName: 'clusterName' };

describe('which windows an app falls under (SyncWindows.Matches)', () => {
  const cases: [string, Partial<SyncWindow>, boolean][] = [
    ['MatchNamespace', { namespaces: ['default'] }, true],
    ['MatchCluster', { clusters: ['cluster1'] }, true],
    ['MatchClusterName', { clusters: ['clusterName'] }, true],
    ['MatchAppName', { applications: ['test-app'] }, true],
    ['MatchAppNameAndNamespace', { applications: ['test-app'], namespaces: ['default'] }, true],
    ['MatchAppNameAndClusterName', { applications: ['test-app'], clusters: ['clusterName'] }, true],
    ['MatchNamespaceAndClusterName', { namespaces: ['default'], clusters: ['clusterName'] }, true],
    ['MatchAppNameAndNamespaceAndClusterName', { applications: ['test-app'], namespaces: ['default'], clusters: ['clusterName'] }, true],
    ['MatchWildcardAppName', { applications: ['test-*'] }, true],
    ['MatchWildcardAppNameAndNamespace', { applications: ['test-*'], namespaces: ['default'] }, true],
    ['MatchWildcardAppNameAndWildcardClusterName', { applications: ['test-*'], clusters: ['clusterN*'] }, true],
    ['NoMatch (nothing set)', {}, false],
    ['OR: one list of three matching is enough', { applications: ['other'], namespaces: ['default'], clusters: ['nowhere'] }, true],
    ['OR: no list matching', { applications: ['other'], namespaces: ['kube-system'] }, false],
  ];
  it.each(cases)('%s', (_name, fields, expected) => {
    expect(windowMatches(window(fields), testApp)).toBe(expected);
  });

  const andCases: [string, Partial<SyncWindow>, boolean][] = [
    ['MatchNamespace', { namespaces: ['default'] }, true],
    ['MatchAppNameAndNamespaceAndClusterName', { applications: ['test-app'], namespaces: ['default'], clusters: ['clusterName'] }, true],
    ['app matches, namespace does not', { applications: ['test-app'], namespaces: ['kube-system'] }, false],
    ['app and namespace match, cluster does not', { applications: ['test-*'], namespaces: ['default'], clusters: ['elsewhere'] }, false],
  ];
  it.each(andCases)('andOperator: %s', (_name, fields, expected) => {
    expect(windowMatches(window({ ...fields, andOperator: true }), testApp)).toBe(expected);
  });
});

/** Whether the window is open at a moment of the judged year (SyncWindow.Active at that moment). */
const openAt = (w: SyncWindow, iso: string): boolean => {
  const t = Date.parse(iso);
  return openStretches(w).some(([from, to]) => from <= t && t < to);
};

describe('when a window is open (SyncWindow.Active)', () => {
  it('is open from each firing for its duration, in UTC', () => {
    const tenToNoon = window({ schedule: '* 10 * * *', duration: '2h' });
    expect(openAt(tenToNoon, '2028-06-01T11:00:00Z')).toBe(true); // MatchFirst
    expect(openAt(tenToNoon, '2028-06-01T12:30:00Z')).toBe(true); // the 10:59 firing holds it to 12:59
    expect(openAt(tenToNoon, '2028-06-01T13:00:00Z')).toBe(false);
    expect(openAt(tenToNoon, '2028-06-01T17:00:00Z')).toBe(false); // MatchNone
  });
  it("reads the schedule in the window's zone", () => {
    const berlinTen = window({ schedule: '0 10 * * *', duration: '1h', timeZone: 'Europe/Berlin' });
    expect(openAt(berlinTen, '2028-01-15T09:30:00Z')).toBe(true); // 10:30 in Berlin, winter
    expect(openAt(berlinTen, '2028-07-15T08:30:00Z')).toBe(true); // 10:30 in Berlin, summer
    expect(openAt(berlinTen, '2028-07-15T10:30:00Z')).toBe(false);
  });
  it('is never open for a duration of zero or less, and always for a schedule that never fires', () => {
    expect(openStretches(window({ duration: '0s' }))).toEqual([]);
    expect(openStretches(window({ duration: '-1h' }))).toEqual([]);
    expect(openStretches(window({ schedule: '0 0 30 2 *', duration: '0s' }))).toEqual([[YEAR.from, YEAR.to]]);
  });
});

describe('how much of the year the controller may sync (CanSync, automated)', () => {
  it('is all of it with no window, and none under a deny window that never closes', () => {
    expect(syncShare([])).toBe(1);
    expect(syncShare([window({ kind: 'deny', schedule: '* * * * *', duration: '1h' })])).toBe(0);
    expect(syncShare([window({ kind: 'deny', schedule: '0 0 * * *', duration: '24h' })])).toBe(0);
  });
  it('is the open time of the allow windows, less the deny windows', () => {
    expect(syncShare([window({ schedule: '0 2 * * *', duration: '2h' })])).toBeCloseTo(2 / 24, 6);
    expect(syncShare([window({ kind: 'deny', schedule: '0 * * * *', duration: '30m' })])).toBeCloseTo(0.5, 6);
    expect(syncShare([window({ schedule: '0 2 * * *', duration: '2h' }), window({ kind: 'deny', schedule: '0 1 * * *', duration: '4h' })])).toBe(0);
    expect(syncShare([window({ schedule: '0 2 * * *', duration: '0s' })])).toBe(0);
  });
  it('ignores a window of a kind Argo CD does not know', () => {
    expect(syncShare([window({ kind: 'Deny', schedule: '* * * * *', duration: '1h' })])).toBe(1);
  });
});

describe('what Argo CD cannot read in a window (SyncWindow.Validate, CanSync)', () => {
  it('refuses a descriptor, a sixth field and a day, and CanSync then fails', () => {
    for (const fields of [{ schedule: '@daily' }, { schedule: '0 0 2 * * *' }, { duration: '1d' }, { duration: '' }]) {
      const w = window(fields);
      expect(breaksCanSync(w), JSON.stringify(fields)).toBe(true);
    }
  });
  it('names a kind it ignores and a zone it replaces by UTC, which CanSync does not fail on', () => {
    const w = window({ kind: 'Allow', timeZone: 'Mars/Olympus' });
    expect(windowProblems(w).map((p) => p.field)).toEqual(['kind', 'timeZone']);
    expect(breaksCanSync(w)).toBe(false);
    expect(windowProblems(window({ timeZone: 'US/Eastern' }))).toEqual([]);
  });
  it("loads the zone as Go's time.LoadLocation does: a name in another case, an offset or a path is no zone, and the window is read in UTC", () => {
    for (const timeZone of ['europe/berlin', '+01:00', '../etc/passwd'])
      expect(
        windowProblems(window({ timeZone })).map((p) => p.problem),
        timeZone,
      ).toEqual([expect.stringMatching(/^".*" is no zone Go's time.LoadLocation finds \((unknown time zone|time: invalid location name)/)]);
    for (const timeZone of ['', 'UTC', 'Local', 'Etc/GMT+5']) expect(windowProblems(window({ timeZone })), timeZone).toEqual([]);
    const lowerBerlin = window({ schedule: '0 10 * * *', duration: '1h', timeZone: 'europe/berlin' });
    expect(openStretches(lowerBerlin)).toEqual(openStretches(window({ schedule: '0 10 * * *', duration: '1h' })));
  });
});

describe("Go's time.ParseDuration", () => {
  it.each([
    ['1h30m', 5_400_000],
    ['1.5h', 5_400_000],
    ['.5s', 500],
    ['1.h', 3_600_000],
    ['-2m', -120_000],
    ['+0', 0],
    ['0', 0],
    ['1µs', 0.001],
  ])('reads %s', (text, ms) => {
    expect(goDurationMs(text)).toBeCloseTo(ms, 9);
  });
  it.each(['1d', '1H', '', '.h', '1h 30m', '3000000h', '-'])('refuses "%s"', (text) => {
    expect(goDurationMs(text)).toBeUndefined();
  });
});
