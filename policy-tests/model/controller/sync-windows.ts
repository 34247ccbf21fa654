/**
 * An AppProject's sync windows as Argo CD reads them (pkg/apis/application/v1alpha1/types.go, v3.5): which
 * windows an Application falls under (SyncWindows.Matches), and when they let the controller sync it on its own
 * (CanSync with isManual false, which the controller asks before every automated sync). A deny window that is
 * open stops the sync; where any allow window matches, the app syncs only while one is open; a window Argo CD
 * cannot parse makes CanSync fail, and the controller then never syncs the app.
 *
 * When is worked out over one leap year (2028, weekdays and all), window by window as the stretches of time it
 * is open, in Argo CD's arithmetic: the schedule read in UTC, shifted by the zone's offset (taken at each firing,
 * where Argo CD takes today's), open from a firing for the duration. The schedule is parsed as SyncWindow.Validate
 * and active parse it, robfig/cron's parser with five fields and no descriptor (model/cron/), once per schedule; the
 * zone is loaded as they load it, Go's time.LoadLocation (model/core/time.ts).
 */

import { dig } from '../core/dig.ts';
import { goDurationMs, loadLocation, zoneOffsetMs } from '../core/time.ts';
import { DOM, DOW, HOUR, MINUTE, MONTH, neverFires, parseCron, type CronResult } from '../cron/robfig.ts';
import { firingsOf } from '../cron/firings.ts';
import { argoGlobMatch } from '../core/glob.ts';
import type { Path } from '../core/positions.ts';
import type { Resource } from '../core/manifest.ts';

/** The parser Argo CD builds for a window's schedule: cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow). */
const WINDOW_FIELDS = MINUTE | HOUR | DOM | MONTH | DOW;

/** Each schedule parsed once per process: a window is judged, then worked out, and the diff asks again. */
const parses = new Map<string, CronResult>();
const parsedSchedule = (schedule: string): CronResult => {
  let parsed = parses.get(schedule);
  if (!parsed) parses.set(schedule, (parsed = parseCron(schedule, WINDOW_FIELDS)));
  return parsed;
};

export interface SyncWindow {
  project: Resource;
  /** Its place in the project, for findings. */
  at: Path;
  index: number;
  kind: string;
  schedule: string;
  duration: string;
  timeZone: string;
  applications: string[];
  namespaces: string[];
  clusters: string[];
  andOperator: boolean;
}

/** The Application fields a window is matched on. */
export interface WindowTarget {
  name: string;
  namespace: string;
  server: string;
  clusterName: string;
}

const texts = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The windows of an AppProject, in its order. */
export function syncWindowsOf(project: Resource): SyncWindow[] {
  const list = dig(project.object, ['spec', 'syncWindows']);
  if (!Array.isArray(list)) return [];
  return list.map((raw: unknown, index) => {
    const w = (raw ?? {}) as Record<string, unknown>;
    return {
      project,
      at: ['spec', 'syncWindows', index],
      index,
      kind: text(w.kind),
      schedule: text(w.schedule),
      duration: text(w.duration),
      timeZone: text(w.timeZone),
      applications: texts(w.applications),
      namespaces: texts(w.namespaces),
      clusters: texts(w.clusters),
      andOperator: w.andOperator === true,
    };
  });
}

const anyMatch = (patterns: readonly string[], value: string): boolean => patterns.some((p) => value !== '' && argoGlobMatch(p, value));

/**
 * SyncWindows.Matches for one window: applications, then clusters (destination name or server), then namespaces;
 * with the OR operator the first list that matches decides, with andOperator every list that is set must match.
 * A window that sets none of the three matches nothing.
 */
export function windowMatches(w: SyncWindow, app: WindowTarget): boolean {
  const lists: [readonly string[], (patterns: readonly string[]) => boolean][] = [
    [w.applications, (p) => p.some((a) => argoGlobMatch(a, app.name))],
    [w.clusters, (p) => anyMatch(p, app.clusterName) || anyMatch(p, app.server)],
    [w.namespaces, (p) => p.some((n) => argoGlobMatch(n, app.namespace))],
  ];
  const set = lists.filter(([patterns]) => patterns.length > 0);
  if (set.length === 0) return false;
  return w.andOperator ? set.every(([patterns, match]) => match(patterns)) : set.some(([patterns, match]) => match(patterns));
}

export interface WindowProblem {
  field: 'kind' | 'schedule' | 'duration' | 'timeZone';
  problem: string;
  /** Whether CanSync errors on it (a schedule or duration it cannot parse), so the apps the window matches never sync on their own. */
  stopsSync: boolean;
}

/** Why Argo CD cannot use a window as written, field by field (SyncWindow.Validate, and what CanSync parses). */
export function windowProblems(w: SyncWindow): WindowProblem[] {
  const problems: WindowProblem[] = [];
  const add = (field: WindowProblem['field'], problem: string, stopsSync = false) => problems.push({ field, problem, stopsSync });
  if (w.kind !== 'allow' && w.kind !== 'deny') add('kind', `kind "${w.kind}" is neither allow nor deny, so Argo CD counts the window as neither`);
  const parsed = parsedSchedule(w.schedule);
  if (!parsed.ok) add('schedule', `Argo CD cannot parse the schedule "${w.schedule}": ${parsed.error}`, true);
  else if (neverFires(parsed.schedule))
    add('schedule', `"${w.schedule}" names a day its month never has; robfig/cron then finds no firing, and Argo CD counts the window as open at every moment`);
  if (goDurationMs(w.duration) === undefined)
    add('duration', `Argo CD cannot parse the duration "${w.duration}" (Go durations: 30m, 1h30m, 10h; no days)`, true);
  const zone = loadLocation(w.timeZone);
  if (!zone.ok) add('timeZone', `"${w.timeZone}" is no zone Go's time.LoadLocation finds (${zone.error}); Argo CD reads the schedule in UTC instead`);
  return problems;
}

/** Whether CanSync errors on the window: a schedule or duration it cannot parse (a bad kind or zone it only ignores). */
export const breaksCanSync = (w: SyncWindow): boolean => windowProblems(w).some((p) => p.stopsSync);

/** The year the windows are judged over: a leap year, from its first moment. */
export const YEAR = { from: Date.UTC(2028, 0, 1), to: Date.UTC(2029, 0, 1) };

type Stretch = [number, number];

/** The stretches of YEAR the window is open in, merged and in order (robfig's Next from each moment, as Active). */
export function openStretches(w: SyncWindow): Stretch[] {
  const parsed = parsedSchedule(w.schedule);
  if (!parsed.ok || parsed.schedule.kind !== 'spec') return []; // CanSync fails on it: breaksCanSync's to say
  // robfig's Next of a schedule that never fires is Go's zero time, before every moment: the window is always open.
  if (neverFires(parsed.schedule)) return [[YEAR.from, YEAR.to]];
  const length = goDurationMs(w.duration) ?? 0;
  if (length <= 0) return []; // Next(now - d) is never before now
  const fires = firingsOf(parsed.schedule);
  // "" is UTC to LoadLocation, and "Local" the controller's zone, UTC in its image (no TZ, no /etc/localtime).
  const zone = w.timeZone === '' || w.timeZone === 'Local' || !loadLocation(w.timeZone).ok ? 'UTC' : w.timeZone;
  const offset = zone === 'UTC' || zone === 'Etc/UTC' ? () => 0 : (f: number) => zoneOffsetMs(zone, f);
  const shift = (f: number) => f - offset(f);
  const stretches: Stretch[] = [];
  // Past this (in the schedule's own time) nothing counts: a window open all year stops growing here.
  const last = YEAR.to + offset(YEAR.to) + length;
  // A firing before the year can hold it open at its start; each step jumps to where the stretch so far ends.
  let start = fires.atOrAfter(YEAR.from + offset(YEAR.from) - length);
  while (start !== undefined && shift(start) < YEAR.to) {
    let end = start + length;
    for (let latest = fires.before(end); end < last && latest !== undefined && latest + length > end; latest = fires.before(end)) end = latest + length;
    stretches.push([Math.max(shift(start), YEAR.from), Math.min(shift(start) + (end - start), YEAR.to)]);
    start = fires.atOrAfter(end);
  }
  return stretches.filter(([a, b]) => b > a);
}

/** The union of sorted stretch lists, merged. */
function union(lists: Stretch[][]): Stretch[] {
  const all = lists.flat().sort((a, b) => a[0] - b[0]);
  const merged: Stretch[] = [];
  for (const [a, b] of all) {
    const last = merged.at(-1);
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else merged.push([a, b]);
  }
  return merged;
}

/** `from` with `cut` taken out; both merged and in order. */
function without(from: Stretch[], cut: Stretch[]): Stretch[] {
  const out: Stretch[] = [];
  for (const [a, b] of from) {
    let at = a;
    for (const [c, d] of cut) {
      if (d <= at || c >= b) continue;
      if (c > at) out.push([at, c]);
      at = Math.max(at, d);
    }
    if (at < b) out.push([at, b]);
  }
  return out;
}

/**
 * The share of YEAR in which CanSync(false) lets the controller sync an app under `windows` (valid ones: the
 * caller leaves out what breaksCanSync), from 0 (never) to 1: no open deny window, and, where any allow window
 * matches, an open one.
 */
export function syncShare(windows: readonly SyncWindow[]): number {
  const allows = windows.filter((w) => w.kind === 'allow');
  const denies = windows.filter((w) => w.kind === 'deny');
  const allowed = allows.length > 0 ? union(allows.map(openStretches)) : [[YEAR.from, YEAR.to] as Stretch];
  const free = without(allowed, union(denies.map(openStretches)));
  return free.reduce((sum, [a, b]) => sum + (b - a), 0) / (YEAR.to - YEAR.from);
}

/** The fields a window is matched on, read from an Application. */
export function windowTarget(app: Resource): WindowTarget {
  const destination = (dig(app.object, ['spec', 'destination']) ?? {}) as Record<string, unknown>;
  return { name: app.name, namespace: text(destination.namespace), server: text(destination.server), clusterName: text(destination.name) };
}

/** How a window reads in a finding: its kind, schedule, length and zone. */
export const describeWindow = (w: SyncWindow): string =>
  `${w.kind || 'unkinded'} window ${w.index} ("${w.schedule}" for ${w.duration || 'no time'}${w.timeZone && w.timeZone !== 'UTC' ? `, ${w.timeZone}` : ''})`;

/** robfig takes a TZ= prefix on a schedule, which Argo CD's own zone offset then stacks on: not worked out here. */
const ZONE_PREFIX = /^(CRON_)?TZ=/;

/** An app under windows of its project: the ones that match it, and the share of the year they leave it to sync in. */
export interface HeldBack {
  matched: SyncWindow[];
  /** 0 to 1; `broken` where CanSync fails on a window, `unknown` where a schedule's TZ= prefix is not worked out. */
  share: number | 'broken' | 'unknown';
}

export function heldBack(windows: readonly SyncWindow[], app: Resource): HeldBack | undefined {
  const target = windowTarget(app);
  const matched = windows.filter((w) => windowMatches(w, target));
  if (matched.length === 0) return undefined;
  if (matched.some(breaksCanSync)) return { matched, share: 'broken' };
  if (matched.some((w) => ZONE_PREFIX.test(w.schedule))) return { matched, share: 'unknown' };
  return { matched, share: syncShare(matched) };
}

/** When windows let an app sync: inside one of the allow windows, outside every deny window. */
export function whenAllowed(windows: readonly SyncWindow[]): string {
  const of = (kind: string) => windows.filter((w) => w.kind === kind).map(describeWindow);
  const [allows, denies] = [of('allow'), of('deny')];
  return [allows.length > 0 ? `inside ${allows.join(' or ')}` : '', denies.length > 0 ? `outside ${denies.join(' and ')}` : '']
    .filter((p) => p !== '')
    .join(' and ');
}

/** A share of the year in words: `70%`, `2.5%`, `under 0.1%`. */
export function percent(share: number): string {
  if (share < 0.001) return 'under 0.1%';
  return `${(share * 100).toFixed(share < 0.1 ? 1 : 0)}%`;
}

/** Each Application the windows of its project hold back, by name: what a change to it waits for. */
export function heldBackApps(projects: readonly Resource[], apps: readonly { name: string; project: string; resource: Resource }[]): Map<string, HeldBack> {
  const held = new Map<string, HeldBack>();
  for (const project of projects) {
    const windows = syncWindowsOf(project);
    if (windows.length === 0) continue;
    for (const app of apps.filter((a) => a.project === project.name)) {
      const h = heldBack(windows, app.resource);
      if (h) held.set(app.name, h);
    }
  }
  return held;
}

/** When an app held back reaches the cluster, in words: what the rendered diff says of its changes. */
export function heldBackWords(h: HeldBack): string {
  const which = h.matched.map(describeWindow).join(' and ');
  if (h.share === 'broken') return `never syncs on its own: Argo CD cannot read ${which}`;
  if (h.share === 'unknown') return `syncs on its own only when ${which} allow (a TZ= prefix: when is not worked out)`;
  if (h.share === 0) return `never syncs on its own: ${which} leave no moment`;
  return `syncs on its own only ${whenAllowed(h.matched)}, ${percent(h.share)} of the time`;
}
