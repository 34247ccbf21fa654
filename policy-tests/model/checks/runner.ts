/**
 * The policy runner: each check on its view of the repository, then the
 * exemption step (exemptions.ts): a finding an exemption next to the
 * workload covers is dropped, and every exemption is judged.
 */
import { EXEMPTION_CHECK_ID, exemptionFindings, exemptionsOf, exemptionUse } from './exemptions.ts';
import type { CheckContext, FailurePlace, PolicyCheck, Reads } from './kit.ts';
import { chartValues } from '../helm/chart-values.ts';
import { argoGlobMatcher } from '../core/glob.ts';
import type { Finding } from '../core/findings.ts';
import { findingAt, resourceKey, type Resource } from '../core/manifest.ts';
import type { Repo } from '../repository/repo.ts';
import { KUSTOMIZATION_FILES } from '../argocd/kustomize.ts';
import type { SourceRender } from '../argocd/rendered.ts';
import { perKey } from '../core/per-object.ts';

const isKustomization = (file: string) => KUSTOMIZATION_FILES.some((name) => file === name || file.endsWith(`/${name}`));

/**
 * Views already made, per repository and declaration: checks that declare the
 * same reads see the same view object, so what they derive from it (the
 * metrics catalog, the parsed expressions: model/repository/per-repo.ts) is computed once
 * per gate run, not once per check.
 */
const views = new WeakMap<Repo, Map<string, View>>();

/** A check's view of the repository, and the resources of its declared kinds: narrowed once, here. */
interface View {
  repo: Repo;
  resources: readonly Resource[];
}

function viewFor(reads: Reads, repo: Repo): View {
  let known = views.get(repo);
  if (!known) views.set(repo, (known = new Map()));
  const signature = JSON.stringify([reads.kinds ?? [], reads.files ?? [], reads.charts ?? []]);
  let view = known.get(signature);
  if (!view) known.set(signature, (view = makeView(reads, repo)));
  return view;
}

/**
 * The repository as one check may see it: resources of the kinds it declares
 * (and the Applications that name the charts it reads), and the data files it
 * declares (and those charts' values files). A check that reads something it
 * did not declare finds it missing, and its tests fail.
 */
function makeView(reads: Reads, repo: Repo): View {
  const { kinds = [], files = [], charts = [] } = reads;
  const every = kinds.includes('*');
  // The Applications that name the charts it reads are in its view of the repository, not among its resources.
  const kindSet = new Set([...kinds, ...(charts.length ? ['Application'] : [])]);
  const resources = every ? repo.resources : repo.resources.filter((r) => kindSet.has(r.kind));
  const chartFiles = new Set(charts.flatMap((chart) => chartValues(repo, chart).map((v) => v.file)));
  const declared = declaredBy(files);
  const dataFiles = new Map([...repo.dataFiles].filter(([file]) => chartFiles.has(file) || declared(file)));
  return {
    repo: { ...repo, resources, dataFiles },
    resources: every || !charts.length || kinds.includes('Application') ? resources : resources.filter((r) => r.kind !== 'Application'),
  };
}

/**
 * Whether a check with these globs sees a file, by globs and then by path: the same in every view (the mutation
 * runs make hundreds). Kustomization files are layout (they say which files an app applies), visible to every
 * check like the file tree: the files an app applies are then derived once for every view (argocd.ts filesOfApp).
 */
const declaredBy = perKey(
  1000,
  (globs: readonly string[]) => {
    // Compiled once per list: looking each glob up by name for every file of every view cost some 20 ms a run.
    const matchers = globs.map(argoGlobMatcher);
    return perKey(20_000, (file: string) => isKustomization(file) || matchers.some((m) => m.test(file)));
  },
  (globs) => JSON.stringify(globs),
);

function contextFor(check: PolicyCheck, repo: Repo, renders: readonly SourceRender[], out: Finding[]): CheckContext {
  const view = viewFor(check.reads, repo);
  return {
    repo: view.repo,
    resources: view.resources,
    renders: check.reads.renders ? renders : [],
    fail: (place, message, fix) => out.push(at(place, message, fix ?? check.remediation)),
    warn: (place, message, fix) => out.push({ ...at(place, message, fix ?? check.remediation), severity: 'warning' }),
    notJudged: (place, why, fix) => out.push({ ...at(place, why, fix ?? check.remediation), severity: 'not-judged' }),
  };
  function at(place: FailurePlace, message: string, fix: string): Finding {
    if ('resource' in place) return findingAt(place.resource, place.path, { check: check.id, message, fix, target: place.target });
    if ('data' in place) {
      // A merged set of values points each path at the layer, in its own file, that set it.
      const { line, col, file } = place.data.positions.at(place.path, 'key');
      return { file: file ?? place.data.file, line, col, check: check.id, message, fix };
    }
    return { file: place.file, line: place.line ?? 1, col: place.col ?? 1, check: check.id, message, fix };
  }
}

/**
 * A check that threw: a fault of the gate, met on a value of a type the check did not expect (a number where a
 * list is written). One finding in the check's name, never a pass and never a stack trace, and the other checks
 * still run: the report keeps the findings that say what is wrong with the value (the schema layer's, as a rule).
 */
export function checkFault(check: Pick<PolicyCheck, 'id'>, err: unknown): Finding {
  const cause = err instanceof Error ? `${err.name}: ${err.message.split('\n')[0]}` : String(err);
  return {
    file: '.',
    line: 1,
    col: 1,
    check: check.id,
    message: `the check could not judge the repository (${cause}): a fault of the gate, met on a value of a type it did not expect`,
    fix: 'look at the other findings for a value of the wrong type (a list, a map or a number where another is written) and correct it; if none is named, report this line',
  };
}

/** What one stage's checks found, and the exemptions that dropped a finding (the exemption step judges them after every stage). */
export interface StageRun {
  findings: Finding[];
  used: ReadonlySet<string>;
}

/** The checks of one stage, each on its view of the repository; a finding an exemption next to its workload covers is dropped and its use recorded. */
export function runChecks(repo: Repo, checks: readonly PolicyCheck[], renders: readonly SourceRender[] = []): StageRun {
  const byLocation = new Map(repo.resources.map((r) => [resourceKey(r), r]));
  const used = new Set<string>();
  const findings: Finding[] = [];
  for (const check of checks) {
    if (check.id === EXEMPTION_CHECK_ID) continue;
    const raw: Finding[] = [];
    try {
      check.run(contextFor(check, repo, renders, raw));
    } catch (err) {
      raw.push(checkFault(check, err));
    }
    for (const finding of raw) {
      const resource = finding.doc === undefined ? undefined : byLocation.get(resourceKey(finding));
      const reason = check.exemptible && resource ? exemptionsOf(resource).get(check.id) : undefined;
      if (reason) used.add(exemptionUse(finding, check.id));
      else findings.push(finding);
    }
  }
  return { findings, used };
}

/** The exemption step, after every stage: each exemption judged against the checks that ran (`known`) and the uses they recorded. */
export function exemptionStep(repo: Repo, known: readonly PolicyCheck[], runs: readonly StageRun[]): Finding[] {
  const used = new Set(runs.flatMap((r) => [...r.used]));
  return exemptionFindings(repo.resources, new Map(known.map((c) => [c.id, c])), used);
}

/** Checks in one stage, then the exemption step when `checks` holds its declaration (tests and the benchmark run a few checks alone). */
export function runPolicy(repo: Repo, checks: readonly PolicyCheck[], renders: readonly SourceRender[] = []): Finding[] {
  const run = runChecks(repo, checks, renders);
  if (!checks.some((c) => c.id === EXEMPTION_CHECK_ID)) return run.findings;
  return [...run.findings, ...exemptionStep(repo, checks, [run])];
}
