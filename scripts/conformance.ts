/**
 * Measures the admission layer against Kubernetes' own test data, the gate's reading of a source against Argo CD's
 * repo-server tests, and the cluster facts' Talos tables against Talos' own source, read from upstream checkouts
 * given by path (nothing upstream is committed):
 *   npm run conformance -- --pod-security ../pod-security-admission --apiserver ../apiserver --apiextensions ../apiextensions-apiserver
 * and prints agreement per control and per library, then every disagreement.
 */
import { existsSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT, conformance, facts, render } from '../policy-tests/index.ts';
import { runCommand, UsageError, type CommandIo } from './lib/command.ts';

type Agreement = conformance.Agreement;

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch (err) {
    throw new Error(`cannot read ${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** Every fixture of both levels at this minor version. */
function podSecurityFixtures(root: string, minor: number): conformance.PodSecurityFixture[] {
  const out: conformance.PodSecurityFixture[] = [];
  for (const level of ['baseline', 'restricted'] as const)
    for (const expect of ['pass', 'fail'] as const) {
      const dir = join(root, 'test/testdata', level, `v1.${minor}`, expect);
      for (const file of listDir(dir).filter((f) => f.endsWith('.yaml'))) {
        const pod = parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown>;
        out.push({ level, expect, check: conformance.fixtureCheck(file), file: `${level}/v1.${minor}/${expect}/${file}`, pod, minor });
      }
    }
  return out;
}

/** The Pod Security fixtures of every policy version up to `newest`, each judged at its own: a line per version, then the total. */
function reportEveryPolicyVersion(root: string, newest: number, print: (t: string) => void): void {
  let [agree, total] = [0, 0];
  for (let minor = 0; minor <= newest; minor++) {
    const a = conformance.podSecurityAgreement(podSecurityFixtures(root, minor));
    print(`Pod Security fixtures, v1.${minor}: ${a.agree}/${a.total} agree (${percent(a.agree, a.total)})\n`);
    for (const d of a.disagreements) print(`  DISAGREES ${d.file}: ${d.why}\n`);
    [agree, total] = [agree + a.agree, total + a.total];
  }
  print(`Pod Security fixtures of v1.0 to v1.${newest}: ${agree}/${total} agree (${percent(agree, total)})\n`);
}

/** Every input of the YAML test suite's data branch: `<id>/in.yaml`, or `<id>/<n>/in.yaml` for a case of several. */
function yamlSuiteCases(root: string): conformance.YamlSuiteCase[] {
  const out: conformance.YamlSuiteCase[] = [];
  const visit = (dir: string, id: string): void => {
    const entries = listDir(dir);
    if (entries.includes('in.yaml')) out.push({ id, text: readText(join(dir, 'in.yaml')), refused: entries.includes('error') });
    for (const sub of entries.filter((e) => /^\d+$/.test(e))) visit(join(dir, sub), `${id}/${sub}`);
  };
  for (const id of listDir(root).filter((e) => /^[A-Z0-9]{4}$/.test(e))) visit(join(root, id), id);
  if (out.length === 0) throw new Error(`${root} holds no case of the YAML test suite (its data branch: <id>/in.yaml)`);
  return out;
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

const percent = (a: number, b: number) => (b === 0 ? 'n/a' : `${((100 * a) / b).toFixed(1)}%`);

function report(title: string, a: Agreement, print: (t: string) => void): void {
  print(`${title}: ${a.agree}/${a.total} agree (${percent(a.agree, a.total)})\n`);
  for (const [group, g] of [...a.byGroup].sort(([x], [y]) => x.localeCompare(y))) print(`  ${group.padEnd(32)} ${g.agree}/${g.cases}\n`);
  for (const d of a.disagreements) print(`  DISAGREES ${d.file}: ${d.why}\n`);
}

/** The facts' Talos tables against a siderolabs/talos checkout: each row's package, the etcd of its own minor, the tests' cases. */
function reportTalos(checkout: string, print: (t: string) => void): void {
  const compat = join(checkout, 'pkg/machinery/compatibility');
  const tables = facts.checkoutFacts(REPO_ROOT);
  const minors = new Set([...tables.talosUpgrades, ...tables.talosKubernetes].map((r) => r.talos));
  const packages = new Map(
    [...minors].map((m) => {
      const file = join(compat, conformance.talosPackageName(m), `${conformance.talosPackageName(m)}.go`);
      return [m, existsSync(file) ? conformance.talosPackage(readText(file)) : undefined] as const;
    }),
  );
  const tag = readText(join(checkout, 'pkg/machinery/gendata/data/tag'));
  const own = {
    minor: conformance.tagMinor(tag) ?? tag.trim(),
    etcd: conformance.defaultEtcdVersion(readText(join(checkout, 'pkg/machinery/constants/constants.go'))),
  };
  const rows = conformance.talosFactsAgreement(tables, packages, own);
  const newer = rows.notInCheckout.length ? `; the rows of Talos ${rows.notInCheckout.join(', ')}, newer than it, not measured` : '';
  report(`The cluster facts' Talos rows against Talos ${tag.trim()} (pkg/machinery/compatibility, constants${newer})`, rows.agreement, print);
  const upgrades = conformance.talosUpgradeAgreement(
    conformance.compatibilityCases(readText(join(compat, 'talos_version_test.go')), 'TestTalosUpgradeCompatibility'),
    tables,
  );
  report(`talosctl upgrade cases (talos_version_test.go; ${upgrades.withoutRow} of minors without a facts row not measured)`, upgrades.agreement, print);
  const kubernetes = conformance.talosKubernetesAgreement(
    conformance.compatibilityCases(readText(join(compat, 'kubernetes_version_test.go')), 'TestKubernetesCompatibility'),
    tables,
  );
  report(
    `Kubernetes on Talos cases (kubernetes_version_test.go; ${kubernetes.withoutRow} of minors without a facts row not measured)`,
    kubernetes.agreement,
    print,
  );
}

/** gitops-engine's hook tests in an argo-cd checkout, judged through the model's reading of hooks. */
function reportHooks(checkout: string, print: (t: string) => void): void {
  const dir = join(checkout, 'gitops-engine/pkg/sync/hook');
  // A checkout from before gitops-engine moved into argo-cd's repository has no copy of it.
  if (!existsSync(dir)) {
    print("gitops-engine's hook tests: not in this checkout\n");
    return;
  }
  const names = ['hook_test.go', 'delete_policy_test.go', 'helm/hook_test.go', 'helm/type_test.go', 'helm/delete_policy_test.go'];
  const { agreement, notFollowed } = conformance.hookTestAgreement(names.map((name) => ({ name, go: readText(join(dir, name)) })));
  report(`gitops-engine's hook tests (gitops-engine/pkg/sync/hook)${notFollowed.length ? `; ${notFollowed.length} not followed` : ''}`, agreement, print);
  for (const n of notFollowed) print(`  NOT FOLLOWED ${n}\n`);
  const sort = conformance.sortCases(readText(join(checkout, 'gitops-engine/pkg/sync/sync_tasks_test.go')));
  report("gitops-engine's sync order (gitops-engine/pkg/sync/sync_tasks_test.go)", conformance.sortAgreement(sort.cases), print);
  for (const u of sort.unread) print(`  NOT READ ${u.test}: ${u.why}\n`);
}

/** The repo-server's tests in an argo-cd checkout, judged; the figure is the last line. */
/** The account a sync impersonates: TestDeriveServiceAccountMatchingNamespaces and ...MatchingServers (controller/sync_test.go). */
function reportImpersonation(checkout: string, print: (t: string) => void): void {
  const file = join(checkout, 'controller/sync_test.go');
  if (!existsSync(file)) {
    print('Argo CD impersonation cases: controller/sync_test.go is not in this checkout\n');
    return;
  }
  const { cases, unread } = conformance.impersonationCases(readText(file));
  report("Argo CD's impersonated account (controller/sync_test.go)", conformance.impersonationAgreement(cases), print);
  for (const u of unread) print(`  NOT READ ${u.test}: ${u.why}\n`);
}

/** The symlinks the repo-server refuses before any source: util/app/path/path_test.go on its testdata folders. */
function reportSymlinks(checkout: string, print: (t: string) => void): void {
  const dir = join(checkout, 'util/app/path');
  if (!existsSync(join(dir, 'path_test.go'))) {
    print("Argo CD's symlink cases: util/app/path/path_test.go is not in this checkout\n");
    return;
  }
  const { cases, unread } = conformance.symlinkCases(readText(join(dir, 'path_test.go')));
  report(
    "Argo CD's out-of-bounds symlinks (util/app/path/path_test.go)",
    conformance.symlinkAgreement(cases, (folder) => linksUnder(join(dir, folder))),
    print,
  );
  for (const u of unread) print(`  NOT READ ${u.test}: ${u.why}\n`);
  const holds = (root: string, path: string) => {
    const at = join(dir, root, path);
    return { folder: existsSync(at) && statSync(at).isDirectory(), file: existsSync(at) && statSync(at).isFile() };
  };
  report(
    "Argo CD's source paths (util/app/path/path_test.go, Path)",
    conformance.pathAgreement(conformance.pathCases(readText(join(dir, 'path_test.go'))), holds),
    print,
  );
}

/** The symlinks under a folder, each by its path in the folder and the target it holds. */
function linksUnder(root: string): { path: string; target: string }[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isSymbolicLink())
    .map((e) => {
      const abs = join(e.parentPath, e.name);
      return { path: relative(root, abs).split(sep).join('/'), target: readlinkSync(abs) };
    });
}

/** What an AppProject permits: pkg/apis/application/v1alpha1/types_test.go and util/argo/argo_test.go. */
function reportProjects(checkout: string, print: (t: string) => void): void {
  const [types, argo] = ['pkg/apis/application/v1alpha1/types_test.go', 'util/argo/argo_test.go'].map((f) => join(checkout, f));
  if (!existsSync(types!) || !existsSync(argo!)) {
    print("Argo CD's project cases: types_test.go or argo_test.go is not in this checkout\n");
    return;
  }
  const { agreement, notFollowed } = conformance.projectAgreement(readText(types!), readText(argo!));
  report("Argo CD's AppProject permissions (types_test.go, argo_test.go)", agreement, print);
  for (const n of notFollowed) print(`  NOT FOLLOWED ${n}\n`);
}

/** An ApplicationSet's template rendering: TestRenderTemplateParams and ...GoTemplate (applicationset/utils/utils_test.go). */
async function reportApplicationSets(checkout: string, print: (t: string) => void): Promise<void> {
  const file = join(checkout, 'applicationset/utils/utils_test.go');
  if (!existsSync(file)) {
    print("Argo CD's ApplicationSet template cases: applicationset/utils/utils_test.go is not in this checkout\n");
    return;
  }
  const { cases, unread } = conformance.applicationSetTemplateCases(readText(file));
  const a = await conformance.applicationSetTemplateAgreement(cases, (jobs) => render.renderGoTemplates(jobs));
  report("Argo CD's ApplicationSet template rendering (applicationset/utils/utils_test.go)", a, print);
  for (const d of a.declinedByDesign) print(`  DECLINED BY DESIGN ${d.test}: ${d.why}\n`);
  for (const u of unread) print(`  NOT READ ${u.test}: ${u.why}\n`);
  const generators = conformance.generatorCases(
    readText(join(checkout, 'applicationset/generators/git_test.go')),
    readText(join(checkout, 'applicationset/generators/list_test.go')),
  );
  report(
    "Argo CD's ApplicationSet git and list generators (applicationset/generators)",
    await conformance.generatorAgreement(generators.cases, (jobs) => render.renderGoTemplates(jobs)),
    print,
  );
  for (const u of generators.unread) print(`  NOT READ ${u.test}: ${u.why}\n`);
  const controller = join(checkout, 'applicationset/controllers/applicationset_controller_test.go');
  if (!existsSync(controller)) return;
  const validation = conformance.appSetValidationCases(readText(controller));
  report(
    "Argo CD's ApplicationSet controller's refusals (applicationset/controllers, TestValidateGeneratedApplications)",
    conformance.appSetValidationAgreement(validation.cases),
    print,
  );
  for (const u of validation.unread) print(`  NOT READ ${u.test}: ${u.why}\n`);
}

async function reportRepoServer(checkout: string, print: (t: string) => void): Promise<void> {
  reportHooks(checkout, print);
  reportImpersonation(checkout, print);
  reportSymlinks(checkout, print);
  reportProjects(checkout, print);
  await reportApplicationSets(checkout, print);
  const dir = join(checkout, 'reposerver/repository');
  const a = await conformance.repoServerAgreement(dir, conformance.repoServerCases(readText(join(dir, 'repository_test.go')), dir));
  report('Argo CD repo-server cases (reposerver/repository/repository_test.go)', a, print);
  for (const r of a.refusedByDesign) print(`  REFUSED BY DESIGN ${r.test}: ${r.why}\n`);
  for (const n of a.notApplicable) print(`  NOT APPLICABLE ${n.test}: ${n.why}\n`);
  print(
    `Argo CD repo-server cases: ${a.agree}/${a.total} applicable agree (${percent(a.agree, a.total)}); ${a.refusedByDesign.length} refused by design, ${a.notApplicable.length} not applicable\n`,
  );
}

const HELP = `Measures the gate's admission layer against Kubernetes' own test data, its
reading of a source against Argo CD's, and the cluster facts' Talos tables
against Talos' own source, in checkouts you fetch yourself (nothing upstream
is committed):
  --pod-security DIR  k8s.io/pod-security-admission: every fixture of
                      test/testdata/{baseline,restricted}/v1.NN/{pass,fail}
  --apiserver DIR     k8s.io/apiserver: the CEL library function list of
                      pkg/cel/library/library_compatibility_test.go, and
                      the cases of pkg/cel/library/*_test.go
  --apiextensions DIR k8s.io/apiextensions-apiserver: TestValidationExpressions
                      (pkg/apiserver/schema/cel/validation_test.go),
                      TestCelCostStability's rules (celcoststability_test.go)
                      and TestValidateCustomResourceDefinition
                      (pkg/apis/apiextensions/validation/validation_test.go)
  --argocd DIR        argoproj/argo-cd at the pinned tag: gitops-engine's
                      hook tests (gitops-engine/pkg/sync/hook), judged
                      through the gate's reading of hooks, and its sort
                      of a sync's tasks (sync_tasks_test.go), the account a
                      sync impersonates (controller/sync_test.go), the
                      symlinks the repo-server refuses (util/app/path/
                      path_test.go on its testdata), what
                      an AppProject permits (pkg/apis/application/
                      v1alpha1/types_test.go, util/argo/argo_test.go), an
                      ApplicationSet's templates and generators (applicationset/
                      utils/utils_test.go, generators/git_test.go and
                      list_test.go; Go templates through the pinned Helm), what
                      its controller refuses of what they make (controllers/
                      applicationset_controller_test.go), and the
                      repo-server's tests (reposerver/repository/
                      repository_test.go and its testdata/), judged through
                      the gate's reading of a source; its line is printed last
  --talos DIR         siderolabs/talos at a release: the cluster facts'
                      talosUpgrades and talosKubernetes rows against each
                      minor's pkg/machinery/compatibility/talos1NN package,
                      the talosEtcd row of its own minor against
                      DefaultEtcdVersion, and the cases of
                      TestTalosUpgradeCompatibility1NN and
                      TestKubernetesCompatibility1NN of the minors with a row
  --go-kubernetes DIR siderolabs/go-kubernetes at the version that Talos
                      pins: talosctl upgrade-k8s' path list
                      (kubernetes/upgrade/path.go) against the diff's
                      judgement of a Kubernetes move
  --yaml-test-suite DIR
                      yaml/yaml-test-suite's data branch: every in.yaml,
                      read by the gate's fast manifest reader against the
                      yaml library (the same objects and places, or left
                      to it; an input the specification refuses, left)
  --kubernetes 1.NN   the version to measure at (default: the cluster facts')
  --every-policy-version
                      with --pod-security: the fixtures of every policy
                      version from v1.0 to that one, each at its own, with
                      a line per version and their total
Prints agreement per control and per library, then each disagreement.
Exit status: 0 measured (agreement is a figure, not a verdict), 1 a checkout
cannot be read, 2 a usage error. Reads no environment variables.`;

export function conformanceCommand(argv: string[], io?: CommandIo): Promise<number> {
  const print = io?.stdout ?? ((t: string) => void process.stdout.write(t));
  return runCommand(
    {
      name: 'conformance',
      usage:
        'conformance [--pod-security <checkout>] [--apiserver <checkout>] [--apiextensions <checkout>] [--argocd <checkout>] [--talos <checkout>] [--go-kubernetes <checkout>] [--yaml-test-suite <data>] [--kubernetes 1.NN] [--every-policy-version]',
      help: HELP,
      options: {
        'pod-security': { type: 'string' },
        apiserver: { type: 'string' },
        apiextensions: { type: 'string' },
        argocd: { type: 'string' },
        talos: { type: 'string' },
        'go-kubernetes': { type: 'string' },
        'yaml-test-suite': { type: 'string' },
        kubernetes: { type: 'string' },
        'every-policy-version': { type: 'boolean' },
      },
      positionals: { min: 0, max: 0 },
      async run({ values }) {
        const psa = values['pod-security'] as string | undefined;
        const apiserver = values.apiserver as string | undefined;
        const apiextensions = values.apiextensions as string | undefined;
        const argocd = values.argocd as string | undefined;
        const talos = values.talos as string | undefined;
        const goKubernetes = values['go-kubernetes'] as string | undefined;
        const yamlSuite = values['yaml-test-suite'] as string | undefined;
        if (!psa && !apiserver && !apiextensions && !argocd && !talos && !goKubernetes && !yamlSuite)
          throw new UsageError(
            'give --pod-security, --apiserver, --apiextensions, --argocd, --talos, --go-kubernetes or --yaml-test-suite: the upstream checkouts to measure against',
          );
        const version = values.kubernetes as string | undefined;
        if (version !== undefined && !/^1\.\d+$/.test(version)) throw new UsageError(`--kubernetes ${version}: expected 1.NN`);
        const minor = version ? Number(version.split('.')[1]) : facts.factsKubernetesMinor(REPO_ROOT);
        const celCases: Agreement[] = [];
        if (psa && values['every-policy-version']) reportEveryPolicyVersion(psa, minor, print);
        else if (psa) report(`Pod Security fixtures, v1.${minor}`, conformance.podSecurityAgreement(podSecurityFixtures(psa, minor)), print);
        if (apiserver) celCases.push(reportApiserver(apiserver, minor, print));
        if (apiextensions) celCases.push(...reportApiextensions(apiextensions, print));
        if (apiextensions) reportCrdDefinitions(apiextensions, print);
        if (celCases.length > 1) {
          const [agree, total] = [celCases.reduce((n, a) => n + a.agree, 0), celCases.reduce((n, a) => n + a.total, 0)];
          print(`CEL cases of every suite read: ${agree}/${total} agree (${percent(agree, total)})\n`);
        }
        if (talos) reportTalos(talos, print);
        if (goKubernetes)
          report(
            "talosctl upgrade-k8s' path (go-kubernetes kubernetes/upgrade/path.go)",
            conformance.kubernetesPathAgreement(readText(join(goKubernetes, 'kubernetes/upgrade/path.go'))),
            print,
          );
        if (yamlSuite)
          report('YAML test suite, the fast manifest reader against the yaml library', conformance.yamlSuiteAgreement(yamlSuiteCases(yamlSuite)), print);
        if (argocd) await reportRepoServer(argocd, print);
        return 0;
      },
    },
    argv,
    io,
  );
}

/** The CEL libraries' function list up to the minor, and the cases of their tests; the cases are CEL cases. */
function reportApiserver(apiserver: string, minor: number, print: (line: string) => void): Agreement {
  const file = join(apiserver, 'pkg/cel/library/library_compatibility_test.go');
  const names = conformance.libraryFunctionNames(readText(file), minor);
  report(`CEL library functions up to 1.${minor}`, conformance.functionAgreement(names), print);
  const dir = join(apiserver, 'pkg/cel/library');
  const cases = listDir(dir)
    .filter((f) => f.endsWith('_test.go'))
    .flatMap((f) => conformance.libraryCases(f, readFileSync(join(dir, f), 'utf8')));
  const library = conformance.libraryAgreement(cases);
  report('CEL library test cases (pkg/cel/library)', library, print);
  return library;
}

/** TestValidationExpressions, TestCelCostStability (each rule holds) and TestCelEstimatedCostStability (the estimate, figure for figure); the first two are CEL cases. */
function reportApiextensions(dir: string, print: (line: string) => void): Agreement[] {
  const path = (file: string) => join(dir, 'pkg/apiserver/schema/cel', file);
  const rules = conformance.validationAgreement(conformance.validationExpressionCases(readText(path('validation_test.go'))));
  report('CRD rule cases (TestValidationExpressions)', rules, print);
  // The cost tests came with Kubernetes 1.25; an older checkout has none.
  if (!existsSync(path('celcoststability_test.go'))) {
    print('TestCelCostStability: not in this checkout\n');
    return [rules];
  }
  const stabilityGo = readText(path('celcoststability_test.go'));
  const stability = conformance.validationAgreement(conformance.celCostStabilityCases(stabilityGo));
  report('CRD rule cases (TestCelCostStability, that each rule holds)', stability, print);
  const estimated = conformance.estimatedCostAgreement(conformance.estimatedCostCases(stabilityGo));
  report("Estimated cost at CRD create (TestCelEstimatedCostStability), equal to the API server's", estimated, print);
  return [rules, stability];
}

/** A CRD's own validation at create: TestValidateCustomResourceDefinition, each row written as the v1 object it comes from. */
function reportCrdDefinitions(dir: string, print: (line: string) => void): void {
  const api = (file: string) => join(dir, 'pkg/apis/apiextensions', file);
  if (!existsSync(api('validation/validation_test.go'))) {
    print('TestValidateCustomResourceDefinition: pkg/apis/apiextensions/validation/validation_test.go is not in this checkout\n');
    return;
  }
  const table = conformance.crdDefinitionCases(
    readText(api('validation/validation_test.go')),
    [readText(api('v1/types.go')), readText(api('v1/types_jsonschema.go'))],
    [readText(api('types.go')), readText(api('types_jsonschema.go'))],
  );
  report('CRD definitions at create (TestValidateCustomResourceDefinition), as the v1 object each row converts from', conformance.crdDefinitionAgreement(table), print);
  for (const d of table.declined) print(`  DECLINED ${d.name}: ${d.why}\n`);
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) process.exitCode = await conformanceCommand(process.argv.slice(2));
