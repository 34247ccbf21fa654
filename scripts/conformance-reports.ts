/**
 * What `npm run conformance` measures (scripts/conformance.ts is the command): each upstream checkout given, read and
 * reported against the gate's own reading, through the gate's front door.
 */ import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT, conformance, facts } from '../policy-tests/index.ts';
import { percent, readText, report } from './lib/agreement-report.ts';
import { reportComponentHelpers, reportKubelet } from './conformance-kubernetes.ts';
import { reportRepoServer } from './conformance-argocd.ts';
import { reportKubeconform } from './conformance-kubeconform.ts';
import {
  reportCertManager,
  reportExternalSecrets,
  reportGoTemplates,
  reportMetalLB,
  reportPrometheus,
  reportPrometheusOperator,
  reportBlackboxExporter,
  reportLoki,
  reportAlertmanager,
  reportTempo,
  reportTraefik,
  reportAlloy,
  reportRook,
} from './conformance-webhooks.ts';

import type { Checkout } from './conformance-help.ts';

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

/**
 * perlpunk/yaml-test-matrix's gh-pages branch: every input of its data files with go-yaml v2's verdict from its details
 * page (an input with no go-yaml result is left out).
 */
function goYamlMatrixCases(root: string): conformance.GoYamlMatrixCase[] {
  const inputs = ['js/data-valid.js', 'js/data-invalid.js'].flatMap((f) => conformance.matrixInputs(readText(join(root, f))));
  const out: conformance.GoYamlMatrixCase[] = [];
  const pages = new Set(listDir(join(root, 'details')));
  for (const { id, text } of inputs) {
    const verdict = pages.has(`${id}.html`) ? conformance.goYamlVerdict(readText(join(root, 'details', `${id}.html`))) : undefined;
    if (verdict) out.push({ id, text, ...verdict });
  }
  if (out.length === 0) throw new Error(`${root} holds no go-yaml result (yaml-test-matrix's gh-pages: js/data-*.js, details/<id>.html)`);
  return out;
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

/** The checkouts of the webhooks', operators' and programs' own tests, each with its report, in the order printed. */
const PROGRAM_REPORTS: readonly [Checkout, (checkout: string, print: (line: string) => void) => void | Promise<void>][] = [
  ['cert-manager', reportCertManager],
  ['external-secrets', reportExternalSecrets],
  ['metallb', reportMetalLB],
  ['go', reportGoTemplates],
  ['prometheus', reportPrometheus],
  ['prometheus-operator', reportPrometheusOperator],
  ['rook', reportRook],
  ['blackbox-exporter', reportBlackboxExporter],
  ['loki', reportLoki],
  ['alertmanager', reportAlertmanager],
  ['tempo', reportTempo],
  ['traefik', reportTraefik],
  ['alloy', reportAlloy],
];
/** Every report the checkouts given ask for, in the order printed; the Kubernetes minor from --kubernetes, else the cluster facts'. */
export async function measure(
  o: { dir: (flag: Checkout) => string | undefined; version?: string; everyPolicyVersion: boolean },
  print: (line: string) => void,
): Promise<number> {
  const { dir, version } = o;
  const [psa, apiserver, apiextensions, argocd, talos, goKubernetes] = (
    ['pod-security', 'apiserver', 'apiextensions', 'argocd', 'talos', 'go-kubernetes'] as const
  ).map(dir);
  const [yamlSuite, kubeconform, apimachinery, kubeOpenapi, falcoLibs] = (
    ['yaml-test-suite', 'kubeconform', 'apimachinery', 'kube-openapi', 'falco-libs'] as const
  ).map(dir);
  const [componentHelpers, kubelet, cron] = (['component-helpers', 'kubelet', 'cron'] as const).map(dir);
  const minor = version ? Number(version.split('.')[1]) : facts.factsKubernetesMinor(REPO_ROOT);
  const celCases: Agreement[] = [];
  if (psa && o.everyPolicyVersion) reportEveryPolicyVersion(psa, minor, print);
  else if (psa) report(`Pod Security fixtures, v1.${minor}`, conformance.podSecurityAgreement(podSecurityFixtures(psa, minor)), print);
  if (apiserver) celCases.push(reportApiserver(apiserver, minor, print));
  if (apiextensions) celCases.push(...reportApiextensions(apiextensions, print));
  if (apiextensions) reportCrdDefinitions(apiextensions, print);
  if (apimachinery) reportApimachinery(apimachinery, print);
  if (kubeOpenapi) reportKubeOpenapi(kubeOpenapi, print);
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
  if (yamlSuite) report('YAML test suite, the fast manifest reader against the yaml library', conformance.yamlSuiteAgreement(yamlSuiteCases(yamlSuite)), print);
  const matrix = dir('yaml-test-matrix');
  if (matrix)
    report("YAML test suite, the gate's reading against go-yaml v2's (yaml-test-matrix)", conformance.goYamlMatrixAgreement(goYamlMatrixCases(matrix)), print);
  if (falcoLibs) reportFalcoLibs(falcoLibs, print);
  const falco = dir('falco');
  if (falco)
    report(
      "Falco's rules loader tests (unit_tests/engine/test_rule_loader.cpp)",
      conformance.falcoLoaderAgreement(conformance.falcoLoaderCases(readText(join(falco, 'unit_tests/engine/test_rule_loader.cpp')))),
      print,
    );
  if (falco)
    report(
      "Falco's plugin requirement tests (unit_tests/engine/test_plugin_requirements.cpp)",
      conformance.falcoPluginAgreement(conformance.falcoPluginCases(readText(join(falco, 'unit_tests/engine/test_plugin_requirements.cpp')))),
      print,
    );
  for (const [flag, reportOn] of PROGRAM_REPORTS) if (dir(flag)) await reportOn(dir(flag)!, print);
  if (componentHelpers) reportComponentHelpers(componentHelpers, print);
  if (cron)
    report("robfig/cron's parser tests (parser_test.go)", conformance.cronAgreement(conformance.cronCases(readText(join(cron, 'parser_test.go')))), print);
  if (kubelet) reportKubelet(kubelet, minor, print);
  if (argocd) await reportRepoServer(argocd, print);
  if (kubeconform) await reportKubeconform(kubeconform, print);
  return 0;
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
  const requests = join(apiserver, 'pkg/endpoints/request/requestinfo_test.go');
  if (existsSync(requests))
    report(
      'Request info cases (pkg/endpoints/request/requestinfo_test.go)',
      conformance.requestInfoAgreement(conformance.requestInfoCases(readText(requests))),
      print,
    );
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

/** apimachinery's own cases of the name and value rules every object's validation is built from. */
function reportApimachinery(dir: string, print: (line: string) => void): void {
  const table = conformance.syntaxCases(readText(join(dir, 'pkg/util/validation/validation_test.go')));
  report("apimachinery's name and value rules (pkg/util/validation/validation_test.go)", conformance.syntaxAgreement(table), print);
  if (table.unported.length) print(`  NO PORT HERE (not counted): ${table.unported.join(', ')}\n`);
  const ips = conformance.ipCases(readText(join(dir, 'pkg/util/validation/ip_test.go')));
  report(
    "apimachinery's IP and CIDR rules for legacy fields, without strict validation (pkg/util/validation/ip_test.go)",
    conformance.syntaxAgreement(ips),
    print,
  );
  const maps = ['pkg/apis/meta/v1/validation/validation_test.go', 'pkg/api/validation/objectmeta_test.go'].map((f) => join(dir, f)).filter(existsSync);
  report(
    "apimachinery's label and annotation maps (TestValidateLabels, TestValidateAnnotations)",
    conformance.syntaxAgreement(conformance.metadataMapCases(maps.map(readText))),
    print,
  );
  // One test file of the checkout read and reported, or said missing.
  const reportFile = (file: string, what: { short: string; title: string }, agreement: (text: string) => Agreement) => {
    if (!existsSync(join(dir, file))) print(`${what.short}: ${file} is not in this checkout\n`);
    else report(what.title, agreement(readText(join(dir, file))), print);
  };
  reportFile(
    'pkg/fields/selector_test.go',
    { short: 'field selectors', title: "apimachinery's field selectors as the API server reads a list's (pkg/fields/selector_test.go)" },
    (text) => conformance.fieldSelectorAgreement(conformance.fieldSelectorCases(text)),
  );
  reportFile(
    'pkg/labels/selector_test.go',
    { short: 'label selectors', title: "apimachinery's label selectors as the API server reads a list's (pkg/labels/selector_test.go)" },
    (text) => conformance.labelSelectorAgreement(conformance.labelSelectorCases(text)),
  );
  reportFile(
    'pkg/api/resource/quantity_test.go',
    { short: 'quantities', title: "apimachinery's quantities parsed and decoded (pkg/api/resource/quantity_test.go)" },
    (text) => conformance.quantityAgreement(conformance.quantityCases(text)),
  );
  const patchTest = join(dir, 'pkg/util/strategicpatch/patch_test.go');
  if (!existsSync(patchTest)) print('strategic merge patch: pkg/util/strategicpatch/patch_test.go is not in this checkout\n');
  else {
    const patches = conformance.strategicMergePatchCases(readText(patchTest));
    report(
      "apimachinery's strategic merge patches applied (pkg/util/strategicpatch/patch_test.go)",
      conformance.strategicMergePatchAgreement(patches.cases, patches.schema, patches.unread),
      print,
    );
  }
}

/** kube-openapi's own cases of the formats a custom resource's values are held to, through the schema layer's CRD validator. */
function reportKubeOpenapi(dir: string, print: (line: string) => void): void {
  const fixture = join(dir, 'pkg/validation/validate/fixtures/formats/extended-format.json');
  if (existsSync(fixture))
    report(
      "kube-openapi's format fixtures (pkg/validation/validate/fixtures/formats)",
      conformance.formatAgreement(conformance.extendedFormatCases(readText(fixture))),
      print,
    );
  else print('kube-openapi format fixtures: pkg/validation/validate/fixtures/formats/extended-format.json is not in this checkout\n');
  const strfmt = join(dir, 'pkg/validation/strfmt');
  const files = ['default_test.go', 'kubernetes-extensions_test.go', 'date_test.go', 'time_test.go', 'duration_test.go']
    .filter((f) => existsSync(join(strfmt, f)))
    .map((name) => ({ name, source: readText(join(strfmt, name)) }));
  const { cases, unread } = conformance.strfmtCases(files);
  report("kube-openapi's format tests (pkg/validation/strfmt)", conformance.formatAgreement(cases, unread), print);
  const suite = join(dir, 'pkg/validation/validate/fixtures/jsonschema_suite');
  if (!existsSync(suite)) return print('JSON Schema Test Suite: pkg/validation/validate/fixtures/jsonschema_suite is not in this checkout\n');
  const suiteFiles = readdirSync(suite)
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({ name: f.replace(/\.json$/, ''), json: readText(join(suite, f)) }));
  const { agreement, declined } = conformance.suiteAgreement(conformance.suiteCases(suiteFiles).cases);
  report('the JSON Schema Test Suite as kube-openapi runs it (validate/jsonschema_test.go), where a CRD can hold the schema', agreement, print);
  for (const [why, n] of declined) print(`  DECLINED ${n}: ${why}\n`);
}

/** A CRD's own validation at create: TestValidateCustomResourceDefinition and TestSelectableFields, each row as the v1 object it comes from. */
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
  report(
    'CRD definitions at create (TestValidateCustomResourceDefinition, TestSelectableFields), as the v1 object each row converts from',
    conformance.crdDefinitionAgreement(table),
    print,
  );
  for (const d of table.declined) print(`  DECLINED ${d.name}: ${d.why}\n`);
  const warnings = conformance.deprecationWarningCases(readText(api('validation/validation_test.go')));
  report("A version's deprecation warning (Test_validateDeprecationWarning)", conformance.deprecationWarningAgreement(warnings.cases, warnings.unread), print);
  for (const d of warnings.declined) print(`  DECLINED ${d.test}: ${d.why}\n`);
  const defaulting = ['algorithm_test.go', 'prunenulls_test.go'].map((f) => join(dir, 'pkg/apiserver/schema/defaulting', f)).filter(existsSync);
  const steps = conformance.defaultingCases(defaulting.map(readText));
  report(
    "A custom resource's nulls and defaults before validation (TestDefault, TestPruneNonNullableNullsWithoutDefaults)",
    conformance.defaultingAgreement(steps.cases, steps.unread),
    print,
  );
  const pruning = join(dir, 'pkg/apiserver/schema/pruning/algorithm_test.go');
  if (!existsSync(pruning)) return;
  const pruned = conformance.pruningCases(readText(pruning));
  report("A custom resource's unknown fields, as the API server prunes them (TestPrune)", conformance.pruningAgreement(pruned.cases, pruned.unread), print);
}

/** libsinsp's filter parser tests, against the port that reads the tuning. */
function reportFalcoLibs(checkout: string, print: (line: string) => void): void {
  report(
    "libsinsp's filter parser tests (userspace/libsinsp/test/filter_parser.ut.cpp)",
    conformance.falcoParserAgreement(conformance.falcoParserCases(readText(join(checkout, 'userspace/libsinsp/test/filter_parser.ut.cpp')))),
    print,
  );
}
