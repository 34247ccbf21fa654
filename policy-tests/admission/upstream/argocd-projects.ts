/**
 * Argo CD's own cases of what an AppProject permits (argo-cd pkg/apis/application/v1alpha1/types_test.go:
 * TestAppProject_IsSourcePermitted, ..._IsNegatedSourcePermitted, ..._IsDestinationPermitted,
 * ..._IsNegatedDestinationPermitted, ..._IsGroupKindPermitted; util/argo/argo_test.go Test_mergeVirtualProject),
 * read as data and judged through the model (model/argocd/argocd.ts sourcePermitted, model/controller/projects.ts).
 * A table or an assertion this reader cannot follow is counted apart, never guessed.
 */
import { sourcePermitted } from '../../model/argocd/argocd.ts';
import { destinationPermitted, kindPermitted, projectSpec, virtualProject } from '../../model/controller/projects.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';
import { asManifest, blockAt, GoParser, GoUnsupported, tokenize } from './go-literals.ts';

type Obj = Record<string, unknown>;

const NO_NAMES = {
  value: (name: string): unknown => {
    throw new GoUnsupported(`unknown identifier ${name}`);
  },
  call: (name: string): unknown => {
    throw new GoUnsupported(`unknown call ${name}`);
  },
};

const parse = (go: string): unknown => new GoParser(tokenize(go), NO_NAMES).expr();
const body = (src: string, test: string): string | undefined => {
  const at = src.indexOf(`func ${test}(`);
  return at === -1 ? undefined : blockAt(src, src.indexOf('{', at));
};
const projectOf = (spec: unknown, name = 'p', labels?: Obj): Resource =>
  ({ kind: 'AppProject', name, object: { metadata: { name, ...(labels ? { labels } : {}) }, spec: asManifest(spec) } }) as unknown as Resource;

/** The rows of `testData := []struct{...}{...}`, each an object of its fields. */
function tableRows(testBody: string): Obj[] {
  const at = testBody.indexOf('testData := []struct {');
  if (at === -1) throw new GoUnsupported('no testData table');
  const structEnd = at + 'testData := []struct '.length + blockAt(testBody, testBody.indexOf('{', at)).length + 2;
  return parse(`[]Row${testBody.slice(structEnd, structEnd + blockAt(testBody, structEnd).length + 2)}`) as Obj[];
}

export interface ProjectCases {
  agreement: Agreement;
  notFollowed: string[];
}

function judgeTables(src: string, a: Agreement, notFollowed: string[]): void {
  for (const test of ['TestAppProject_IsSourcePermitted', 'TestAppProject_IsNegatedSourcePermitted']) {
    const b = body(src, test);
    if (!b) continue;
    for (const row of tableRows(b)) {
      const got = sourcePermitted(row.projSources as string[], row.appSource as string);
      count(a, {
        group: test,
        ok: got === row.isPermitted,
        file: test,
        why: `${JSON.stringify(row.projSources)} for ${String(row.appSource)}: expects ${String(row.isPermitted)}`,
      });
    }
  }
  const scoped = 'TestAppProject_IsDestinationPermitted_PermitOnlyProjectScopedClusters';
  for (const test of ['TestAppProject_IsDestinationPermitted', 'TestAppProject_IsNegatedDestinationPermitted', scoped]) {
    const b = body(src, test);
    if (!b) continue;
    try {
      for (const row of tableRows(b)) {
        const dest = asManifest(row.appDest) as { server?: string; name?: string; namespace?: string };
        // The scoped test's project permits only its clusters, and lists them per row.
        const spec = projectSpec(projectOf({ Destinations: row.projDest, ...(test === scoped ? { PermitOnlyProjectScopedClusters: true } : {}) }));
        const clusters = (asManifest(row.clusters ?? []) as { server?: string; name?: string }[]).map((c) => ({ server: c.server ?? '', name: c.name ?? '' }));
        const got = destinationPermitted(spec, { server: dest.server ?? '', name: dest.name ?? '' }, dest.namespace ?? '', clusters);
        const name = typeof row.name === 'string' ? `${test}/${row.name}` : test;
        count(a, {
          group: test,
          ok: got === row.isPermitted,
          file: name,
          why: `${JSON.stringify(asManifest(row.projDest))} for ${JSON.stringify(dest)}: expects ${String(row.isPermitted)}`,
        });
      }
    } catch (err) {
      if (!(err instanceof GoUnsupported)) throw err;
      notFollowed.push(`${test}: ${err.message}`);
    }
  }
}

/** TestAppProject_IsGroupKindPermitted: `projN := AppProject{...}` then assertions on projN.IsGroupKindNamePermitted(...). */
function judgeKinds(src: string, a: Agreement, notFollowed: string[]): void {
  const test = 'TestAppProject_IsGroupKindPermitted';
  const b = body(src, test);
  if (!b) return;
  const projects = new Map<string, ReturnType<typeof projectSpec>>();
  for (const m of b.matchAll(/(\w+) := AppProject\{/g)) {
    const open = m.index + m[0].length - 1;
    projects.set(m[1]!, projectSpec(projectOf((parse(`AppProject{${blockAt(b, open)}}`) as Obj).Spec)));
  }
  const call = /assert\.(True|False)\(t, (\w+)\.IsGroupKindNamePermitted\(schema\.GroupKind\{Group: "([^"]*)", Kind: "([^"]*)"\}, "([^"]*)", (true|false)\)\)/g;
  const asked = b.split('\n').filter((l) => l.includes('.IsGroupKindNamePermitted(')).length;
  let read = 0;
  for (const m of b.matchAll(call)) {
    read++;
    const spec = projects.get(m[2]!);
    if (!spec) {
      notFollowed.push(`${test}: ${m[2]} is no project this reader read`);
      continue;
    }
    const got = kindPermitted(spec, { group: m[3]!, kind: m[4]!, name: m[5]!, namespaced: m[6] === 'true' });
    count(a, { group: test, ok: got === (m[1] === 'True'), file: `${test}/${m[2]}`, why: `${m[3]}/${m[4]} ${m[5]} (namespaced ${m[6]}): expects ${m[1]}` });
  }
  if (read < asked) notFollowed.push(`${test}: ${asked - read} assertions in another shape`);
}

/** Test_mergeVirtualProject: the project and its global project merged, against the test's expected lists. */
function judgeMerge(argoTest: string, a: Agreement, notFollowed: string[]): void {
  const test = 'Test_mergeVirtualProject';
  const b = body(argoTest, test);
  if (!b) return;
  const literal = (name: string) => {
    const at = b.indexOf(`${name} := &argoappv1.AppProject{`);
    if (at === -1) throw new GoUnsupported(`no ${name}`);
    const open = b.indexOf('{', at);
    return (parse(`argoappv1.AppProject{${blockAt(b, open)}}`) as Obj).Spec;
  };
  try {
    const [proj, global, expected] = ['proj', 'globalProj', 'expected'].map(literal);
    const projects = [projectOf(proj, 'proj'), projectOf(global, 'global')];
    const merged = virtualProject(projects[0]!, projects, { globalProjects: '- projectName: global\n  labelSelector: {}\n' });
    const want = projectSpec(projectOf(expected, 'expected'));
    for (const field of Object.keys(want) as (keyof typeof want)[])
      count(a, {
        group: test,
        ok: JSON.stringify(merged[field]) === JSON.stringify(want[field]),
        file: `${test}/${field}`,
        why: `${field}: expects ${JSON.stringify(want[field])}, the model merges ${JSON.stringify(merged[field])}`,
      });
  } catch (err) {
    if (!(err instanceof GoUnsupported)) throw err;
    notFollowed.push(`${test}: ${err.message}`);
  }
}

/** Every case of the tests read, from types_test.go and argo_test.go. */
export function projectAgreement(typesTest: string, argoTest: string): ProjectCases {
  const agreement = emptyAgreement();
  const notFollowed: string[] = [];
  judgeTables(typesTest, agreement, notFollowed);
  judgeKinds(typesTest, agreement, notFollowed);
  judgeMerge(argoTest, agreement, notFollowed);
  return { agreement, notFollowed };
}
