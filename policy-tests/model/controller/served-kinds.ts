/**
 * The kinds the cluster serves, as Argo CD's controller finds them by discovery: the built-in APIs (the schema layer
 * knows each group's kinds and scopes) and the custom kinds the repository installs. closure-crd holds every custom
 * kind to its CRD; argocd-project-scope holds each kind an AppProject's lists name to a kind the cluster serves.
 */
import { applications } from '../argocd/argocd.ts';
import { declaredEntries, declaredGroups, PROVIDES_CRDS_AT_RUNTIME } from '../argocd/app-declarations.ts';
import { nearestName, suggesting } from '../core/did-you-mean.ts';
import { dig, isMap } from '../core/dig.ts';
import { goFilepathMatch } from '../core/glob.ts';
import type { Resource } from '../core/manifest.ts';
import { scalarText } from '../core/text.ts';
import type { Repo } from '../repository/repo.ts';
import type { SourceRender } from '../argocd/rendered.ts';

export interface InstalledKinds {
  /** `group/Kind` of every custom kind installed, or `group/*` for a group whose kinds are not seen (its chart not rendered). */
  kinds: Set<string>;
  groups: Set<string>;
  /** Each `group/Kind` a CRD of the repository defines: whether it is cluster-scoped (its spec.scope). */
  clusterScoped: Map<string, boolean>;
}

const crdGroup = (r: Resource): string => scalarText(dig(r.object, ['spec', 'group']) ?? '');

/**
 * Per kind: `group/Kind` from every CRD the repository applies or renders; `group/*` only from a declaration whose
 * chart was not rendered here (a rendered chart shows exactly which kinds it installs), or from providedOutsideGit.
 */
export function installedKinds(repo: Repo, renders: readonly SourceRender[]): InstalledKinds {
  const kinds = new Set<string>();
  const groups = new Set<string>();
  const clusterScoped = new Map<string, boolean>();
  for (const r of repo.resources) {
    if (r.kind !== 'CustomResourceDefinition') continue;
    const key = `${crdGroup(r)}/${scalarText(dig(r.object, ['spec', 'names', 'kind']) ?? '')}`;
    kinds.add(key);
    groups.add(crdGroup(r));
    clusterScoped.set(key, dig(r.object, ['spec', 'scope']) === 'Cluster');
  }
  const renderedApps = new Set(renders.filter((x) => x.status === 'rendered' && x.source.chart !== undefined).map((x) => x.app.name));
  for (const app of applications(repo)) {
    const atRuntime = declaredGroups(app, PROVIDES_CRDS_AT_RUNTIME);
    for (const e of declaredEntries(app)) {
      groups.add(e.split('/')[0]!);
      // An entry is a group, a group/Kind, or (what operators register at run time) a group/version/Kind.
      const parts = e.split('/');
      if (!renderedApps.has(app.name) || atRuntime.includes(parts[0]!))
        kinds.add(parts.length === 3 ? `${parts[0]}/${parts[2]}` : e.includes('/') ? e : `${e}/*`);
    }
  }
  for (const e of repo.facts?.providedOutsideGit ?? [])
    if (e.kind === 'CustomResourceDefinition')
      kinds.add(`${e.name.includes('.') && e.name.split('.').length > 2 ? e.name.slice(e.name.indexOf('.') + 1) : e.name}/*`);
  return { kinds, groups, clusterScoped };
}

/** What an entry of a project's list of kinds matches among the kinds the cluster serves. */
export type EntryMatch =
  /** A group the cluster serves whose kinds are not all known here (a chart not rendered), or none it serves: not judged. */
  | { judged: false }
  /** The served kinds the entry matches (`group/Kind`), each with whether it is cluster-scoped; `near` a kind it likely meant. */
  | { judged: true; kinds: { key: string; clusterScoped: boolean }[]; near?: string };

const groupOfKey = (key: string) => key.slice(0, key.lastIndexOf('/'));
const kindOf = (key: string) => key.slice(key.lastIndexOf('/') + 1);

/** The kinds the cluster serves, each `group/Kind` with whether it is cluster-scoped, and the groups whose kinds are not all seen. */
export interface ServedKinds {
  kinds: ReadonlyMap<string, boolean>;
  unseen: readonly string[];
}

/** The built-in kinds (`builtin`: each `group/Kind` and its scope) with the custom kinds the repository installs. */
export function servedKinds(builtin: ReadonlyMap<string, boolean>, installed: InstalledKinds): ServedKinds {
  const kinds = new Map(builtin);
  const unseen: string[] = [];
  for (const key of installed.kinds)
    if (key.endsWith('/*')) unseen.push(groupOfKey(key));
    else kinds.set(key, installed.clusterScoped.get(key) ?? false);
  return { kinds, unseen };
}

/**
 * The kinds an entry of an AppProject list (group and kind, Go's filepath.Match patterns, as isResourceInList matches
 * them) names among those the cluster serves.
 */
export function entryMatch(entry: { group: string; kind: string }, served: ServedKinds): EntryMatch {
  if (served.unseen.some((g) => goFilepathMatch(entry.group, g))) return { judged: false };
  const inGroups = [...served.kinds].filter(([key]) => goFilepathMatch(entry.group, groupOfKey(key)));
  // A group the cluster does not serve: an entry kept for an API not installed (yet) refuses nothing today, and harms nothing.
  if (inGroups.length === 0) return { judged: false };
  const kinds = inGroups.filter(([key]) => goFilepathMatch(entry.kind, kindOf(key))).map(([key, clusterScoped]) => ({ key, clusterScoped }));
  if (kinds.length > 0) return { judged: true, kinds };
  const near = nearestName(
    entry.kind,
    inGroups.map(([key]) => kindOf(key)),
  );
  return near === undefined ? { judged: true, kinds } : { judged: true, kinds, near };
}

/** A project's lists of kinds, each with the scope of the resources Argo CD judges by it and what its entries do. */
const KIND_LISTS = [
  { list: 'namespaceResourceWhitelist', namespaced: true, effect: 'permits' },
  { list: 'namespaceResourceBlacklist', namespaced: true, effect: 'refuses' },
  { list: 'clusterResourceWhitelist', namespaced: false, effect: 'permits' },
  { list: 'clusterResourceBlacklist', namespaced: false, effect: 'refuses' },
] as const;

/**
 * The entries of an AppProject's spec that match no resource Argo CD judges by their list, each at its kind, and why.
 * Argo CD judges a resource by the two lists of its scope (IsGroupKindNamePermitted): an entry that names a kind no
 * group it names serves (a blacklisted `ResuorceQuota`), or only kinds of the other scope, refuses or permits nothing,
 * without a word. Judged where the gate knows every kind of the groups an entry names; an entry naming a kind the
 * repository's own objects are (`used`, `group/Kind`) is never a slip: if the cluster lacks it, closure-crd says so.
 */
export function emptyEntries(
  spec: Record<string, unknown>,
  { served, used }: { served: ServedKinds; used: ReadonlySet<string> },
): { path: (string | number)[]; message: string }[] {
  const out: { path: (string | number)[]; message: string }[] = [];
  const names = (entry: { group: string; kind: string }) =>
    [...used].some((key) => goFilepathMatch(entry.group, groupOfKey(key)) && goFilepathMatch(entry.kind, kindOf(key)));
  for (const { list, namespaced, effect } of KIND_LISTS) {
    const items = spec[list];
    (Array.isArray(items) ? items : []).forEach((e: unknown, i) => {
      const written = (k: string) => (isMap(e) ? scalarText(e[k] ?? '') : '');
      const entry = { group: written('group'), kind: written('kind') };
      const match = entryMatch(entry, served);
      if (!match.judged) return;
      const path = ['spec', list, i, 'kind'];
      const group = entry.group === '' ? 'the core group' : `group ${entry.group}`;
      if (match.kinds.length === 0) {
        if (!names(entry))
          out.push({
            path,
            message: `${list} names kind ${entry.kind} of ${group}, which the cluster does not serve${suggesting(match.near)}: the entry ${effect} nothing`,
          });
      } else if (match.kinds.every((k) => k.clusterScoped === namespaced))
        out.push({
          path,
          message: `${list} names ${match.kinds.map((k) => kindOf(k.key)).join(', ')}, ${namespaced ? 'cluster-scoped' : 'namespaced'}, while Argo CD judges only ${namespaced ? 'namespaced' : 'cluster-scoped'} resources by it: the entry ${effect} nothing`,
        });
    });
  }
  return out;
}
