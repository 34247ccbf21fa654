/**
 * The conformance command's readers of the webhooks' and operators' own tests: cert-manager's, External Secrets' and
 * MetalLB's validation tables, the blackbox exporter's configuration load, the parsers the prometheus-operator's webhook runs (Go's text/template, Prometheus's
 * PromQL and rule files), and Rook's pool validation, each from a checkout at the version the repository deploys,
 * against the gate's port (policy-tests/admission/webhooks/, model/rook/).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { REPO_ROOT, conformance, facts } from '../policy-tests/index.ts';
import { parseReference } from './monitoring/loki-reference-parse.ts';
import { manifestTree } from './monitoring/tempo-reference.ts';
import { tableOptions, TRAEFIK_TABLE } from './platform/traefik-reference.ts';
import { readText, report } from './lib/agreement-report.ts';
import { alloyDecoderRows, alloyExprErrorRows } from './monitoring/alloy-decoder-tests.ts';

/** cert-manager's Certificate and Issuer validation tests, against the gate's port of its webhook; its solver picker's. */
export function reportCertManager(checkout: string, print: (line: string) => void): void {
  const read = (dir: string) =>
    readdirSync(join(checkout, dir))
      .filter((f) => f.endsWith('.go') && !f.endsWith('_test.go'))
      .map((f) => readText(join(checkout, dir, f)));
  const table = conformance.certManagerCases(
    readText(join(checkout, 'internal/apis/certmanager/validation/certificate_test.go')),
    [...read('pkg/apis/certmanager/v1'), ...read('pkg/apis/meta/v1')],
    read('internal/apis/certmanager'),
  );
  report(`cert-manager's Certificate validation tests (${table.declined.length} declined)`, conformance.certManagerAgreement(table), print);
  const v1 = [...read('pkg/apis/certmanager/v1'), ...read('pkg/apis/acme/v1'), ...read('pkg/apis/meta/v1')];
  const issuers = conformance.certManagerIssuerCases(
    readText(join(checkout, 'internal/apis/certmanager/validation/issuer_test.go')),
    v1,
    read('internal/apis/certmanager/validation'),
  );
  report("cert-manager's Issuer validation tests", conformance.certManagerIssuerAgreement(issuers), print);
  const solvers = conformance.certManagerSolverCases(readText(join(checkout, 'pkg/util/solverpicker/solverpicker_test.go')), v1);
  report("cert-manager's solver picker tests", conformance.certManagerSolverAgreement(solvers), print);
}

/** External Secrets' ExternalSecret and refresh interval tests, against the gate's port of its webhook. */
export function reportExternalSecrets(checkout: string, print: (line: string) => void): void {
  const dir = join(checkout, 'apis/externalsecrets/v1');
  const table = conformance.externalSecretsCases({
    validatorTest: readText(join(dir, 'externalsecret_validator_test.go')),
    typesTest: readText(join(dir, 'secretstore_types_test.go')),
    v1: readdirSync(dir)
      .filter((f) => f.endsWith('.go') && !f.endsWith('_test.go'))
      .map((f) => readText(join(dir, f))),
  });
  report(`External Secrets' validation tests (${table.declined.length} declined)`, conformance.externalSecretsAgreement(table), print);
  // Its template engine's own tests: each template parses, or, where a row expects it, is refused.
  const engine = join(checkout, 'runtime/template/v2');
  const tests = Object.fromEntries(
    (existsSync(engine) ? readdirSync(engine) : []).filter((f) => f.endsWith('_test.go')).map((f) => [f, readText(join(engine, f))]),
  );
  report(
    "External Secrets' template tests (runtime/template/v2)",
    conformance.externalSecretsTemplateAgreement(conformance.externalSecretsTemplateCases(tests)),
    print,
  );
}

/** MetalLB's configuration parse tests and its allocator's, against the gate's ports of its webhooks' parse and its controller. */
export function reportMetalLB(checkout: string, print: (line: string) => void): void {
  const table = conformance.metallbCases({
    configTest: readText(join(checkout, 'internal/config/config_test.go')),
    validationTest: readText(join(checkout, 'internal/config/validation_test.go')),
    types: ['api/v1beta1', 'api/v1beta2'].flatMap((d) =>
      readdirSync(join(checkout, d))
        .filter((f) => f.endsWith('_types.go'))
        .map((f) => readText(join(checkout, d, f))),
    ),
  });
  report(
    "MetalLB's configuration tests (TestParse, every kind; TestValidate and TestValidateFRR, the BGP modes' own checks)",
    conformance.metallbAgreement(table),
    print,
  );
  const allocator = conformance.metallbAllocatorCases(readText(join(checkout, 'internal/allocator/allocator_test.go')));
  report("MetalLB's allocator tests (TestAssignment, TestBuggyIPs), each test's steps in order", conformance.metallbAllocatorAgreement(allocator), print);
}

/** Go's text/template parser tests, from a Go source tree (src/text/template/parse), against the gate's port. */
export function reportGoTemplates(checkout: string, print: (line: string) => void): void {
  const table = conformance.goTemplateCases(readText(join(checkout, 'src/text/template/parse/parse_test.go')));
  report("Go's text/template parser tests (parseTests, errorTests, numberTests)", conformance.goTemplateAgreement(table), print);
}

/** Prometheus's PromQL parser tests and its rule file tests, against what the prometheus-operator's webhook runs. */
export function reportPrometheus(checkout: string, print: (line: string) => void): void {
  const promql = conformance.promqlCases(readText(join(checkout, 'promql/parser/parse_test.go')));
  report(`Prometheus's PromQL parser tests (testExpr; ${promql.declined.length} declined)`, conformance.promqlAgreement(promql), print);
  const testdata = (file: string) =>
    existsSync(join(checkout, 'model/rulefmt/testdata', file)) ? readText(join(checkout, 'model/rulefmt/testdata', file)) : undefined;
  const rules = conformance.ruleFileCases(readText(join(checkout, 'model/rulefmt/rulefmt_test.go')), testdata);
  report(`Prometheus's rule file tests (model/rulefmt; ${rules.declined.length} declined)`, conformance.ruleFileAgreement(rules), print);
}

/** The prometheus-operator's own webhook tests (pkg/admission), against the gate's port of its PrometheusRule validation. */
export function reportPrometheusOperator(checkout: string, print: (line: string) => void): void {
  const golden = (file: string) =>
    existsSync(join(checkout, 'pkg/admission/testdata', file)) ? readText(join(checkout, 'pkg/admission/testdata', file)) : undefined;
  const table = conformance.operatorAdmissionCases(readText(join(checkout, 'pkg/admission/admission_test.go')), golden);
  report(`The prometheus-operator's PrometheusRule webhook tests (${table.declined.length} declined)`, conformance.operatorAdmissionAgreement(table), print);
  const relabel = conformance.relabelCases(readText(join(checkout, 'pkg/prometheus/validation/validator_test.go')));
  report("The prometheus-operator's relabel rule validator tests (TestValidateRelabelConfig)", conformance.relabelAgreement(relabel), print);
  const testdata = (file: string) =>
    existsSync(join(checkout, 'pkg/prometheus/testdata', file)) ? readText(join(checkout, 'pkg/prometheus/testdata', file)) : undefined;
  const config = conformance.operatorConfigCases(readText(join(checkout, 'pkg/prometheus/promcfg_test.go')), testdata);
  report(
    `The prometheus-operator's configuration generator tests (pkg/prometheus/promcfg_test.go, each row whose golden file holds a discovery; ${config.declined.length} declined)`,
    conformance.operatorConfigAgreement(config),
    print,
  );
  for (const d of config.declined) print(`  declined ${d.name}: ${d.why}\n`);
  const reasons = new Map<string, number>();
  for (const u of config.unread) reasons.set(u.why, (reasons.get(u.why) ?? 0) + 1);
  print(`  ${config.unread.length} rows not read, their drivers using what this reader does not follow (most set what no discovery holds):\n`);
  for (const [why, n] of [...reasons].sort((a, b) => b[1] - a[1]).slice(0, 8)) print(`    ${n} × ${why}\n`);
}

/** Rook's pool validation tests (pkg/operator/ceph/pool), against the gate's port of what the operator refuses of a CephBlockPool. */
export function reportRook(checkout: string, print: (line: string) => void): void {
  const table = conformance.rookPoolCases(readText(join(checkout, 'pkg/operator/ceph/pool/validate_test.go')));
  report("Rook's pool validation tests (TestValidatePool)", conformance.rookPoolAgreement(table), print);
}

/** The blackbox exporter's configuration tests (config/config_test.go with its testdata), against the gate's port of its load. */
export function reportBlackboxExporter(checkout: string, print: (line: string) => void): void {
  const testdata = (file: string) => (existsSync(join(checkout, 'config/testdata', file)) ? readText(join(checkout, 'config/testdata', file)) : undefined);
  const table = conformance.blackboxConfigCases(readText(join(checkout, 'config/config_test.go')), testdata);
  report("The blackbox exporter's configuration tests (config/config_test.go)", conformance.blackboxConfigAgreement(table), print);
}

/** Loki's own configuration files (cmd/loki, its docs' examples), each of which Loki loads, decoded against the repository's reference; and whether that reference is the checkout's. */
export function reportLoki(checkout: string, print: (line: string) => void): void {
  const read = conformance.lokiReferenceCatalog(parseYaml(readText(join(REPO_ROOT, facts.LOKI_REFERENCE))));
  if ('problem' in read) throw new Error(`${facts.LOKI_REFERENCE} cannot be read: ${read.problem}`);
  const dirs = ['cmd/loki', 'docs/sources/configure/examples/yaml', 'examples/getting-started'];
  const files = dirs
    .flatMap((dir) => (existsSync(join(checkout, dir)) ? readdirSync(join(checkout, dir)).map((f) => `${dir}/${f}`) : []))
    .filter((f) => conformance.LOKI_CONFIG_FILES.test(f))
    .map((name) => ({ name, text: readText(join(checkout, name)) }));
  report(
    `Loki's own configuration files (cmd/loki, the docs' examples), against the reference of Loki ${read.version}`,
    conformance.lokiConfigAgreement(conformance.lokiConfigCases(files, conformance.lokiReferenceTypes(read.catalog))),
    print,
  );
  const fresh = parseReference(readText(join(checkout, 'docs/sources/shared/configuration.md')));
  const same = JSON.stringify({ root: fresh.root, blocks: fresh.blocks }) === JSON.stringify({ root: read.catalog.root, blocks: read.catalog.blocks });
  print(
    `  ${facts.LOKI_REFERENCE} ${same ? 'is' : 'is not'} what this checkout's configuration reference lists${same ? '' : ': refresh it with npm run loki:reference'}\n`,
  );
}

/** Alertmanager's configuration tests (config/config_test.go with its testdata), against the gate's port of its Load. */
export function reportAlertmanager(checkout: string, print: (line: string) => void): void {
  const testdata = (file: string) => (existsSync(join(checkout, 'config/testdata', file)) ? readText(join(checkout, 'config/testdata', file)) : undefined);
  const table = conformance.alertmanagerConfigCases(readText(join(checkout, 'config/config_test.go')), testdata);
  report("Alertmanager's configuration tests (config/config_test.go)", conformance.alertmanagerConfigAgreement(table), print);
  const matchers = conformance.alertmanagerMatcherCases(readText(join(checkout, 'pkg/labels/parse_test.go')));
  report("Alertmanager's classic matchers parser tests (pkg/labels/parse_test.go)", conformance.alertmanagerConfigAgreement(matchers), print);
  const inhibition = conformance.alertmanagerInhibitCases(readText(join(checkout, 'inhibit/inhibit_test.go')));
  report("Alertmanager's inhibition tests (inhibit/inhibit_test.go)", conformance.alertmanagerInhibitAgreement(inhibition), print);
}

/** Tempo's own example configurations, each of which Tempo loads, against the repository's reference; and whether that reference is the checkout's manifest. */
/** Alloy's parser tests: its valid files and its error files, each against the gate's port of the parser. */
export async function reportAlloy(checkout: string, print: (line: string) => void): Promise<void> {
  const dir = 'syntax/parser/testdata';
  const files = (existsSync(join(checkout, dir)) ? readdirSync(join(checkout, dir), { recursive: true, encoding: 'utf8' }) : [])
    .map((f) => `${dir}/${f.split(sep).join('/')}`)
    .filter((f) => f.endsWith('.alloy'))
    .sort()
    .map((name) => ({ name, text: readText(join(checkout, name)) }));
  if (files.length === 0) throw new Error(`${join(checkout, dir)} holds no .alloy file: not a checkout of grafana/alloy`);
  report("Alloy's parser tests (syntax/parser/testdata)", conformance.alloySyntaxAgreement(conformance.alloySyntaxCases(files)), print);
  const decoderTests = join(checkout, 'syntax/vm/vm_block_test.go');
  if (!existsSync(decoderTests)) throw new Error(`${decoderTests} does not exist: not a checkout of grafana/alloy`);
  const blocks = await alloyDecoderRows(readText(decoderTests));
  const errorTests = join(checkout, 'syntax/vm/vm_errors_test.go');
  const values = existsSync(errorTests) ? await alloyExprErrorRows(readText(errorTests)) : { rows: [], unread: [] };
  const { table, outOfScope } = conformance.alloyDecoderCases([...blocks.rows, ...values.rows], [...blocks.unread, ...values.unread]);
  report(
    "Alloy's decoder tests (syntax/vm/vm_block_test.go, vm_errors_test.go), against the gate's port of its checks of a body and of constant values",
    conformance.alloyDecoderAgreement(table),
    print,
  );
  print(`  ${outOfScope.length} cases expect an error the port does not judge (a value an expression works out, a component's own validation): not in scope\n`);
  const vmTests = join(checkout, 'syntax/vm/vm_test.go');
  const stdlibTests = join(checkout, 'syntax/vm/vm_stdlib_test.go');
  if (!existsSync(vmTests) || !existsSync(stdlibTests)) throw new Error(`${vmTests} or ${stdlibTests} does not exist: not a checkout of grafana/alloy`);
  const expressions = conformance.alloyEvaluateRows({ vm: readText(vmTests), stdlib: readText(stdlibTests) });
  report(
    "Alloy's expression tests (syntax/vm/vm_test.go, vm_stdlib_test.go), against the gate's evaluator and standard library",
    conformance.alloyEvaluateAgreement(conformance.alloyEvaluateCases(expressions.rows, expressions.unread)),
    print,
  );
  const relabelTests = join(checkout, 'internal/component/common/relabel/relabel_test.go');
  if (!existsSync(relabelTests)) print('relabelling: internal/component/common/relabel/relabel_test.go is not in this checkout\n');
  else
    report(
      "Alloy's relabelling rules' own checks (internal/component/common/relabel/relabel_test.go), against the gate's port of relabel.Config.Validate",
      conformance.alloyRelabelAgreement(conformance.alloyRelabelCases(readText(relabelTests))),
      print,
    );
}

/** A reference the repository keeps, read as the gate reads it; one it cannot read ends the run with its problem. */
function keptReference<T extends object>(file: string, read: (doc: unknown) => T | { problem: string }): T {
  const reference = read(parseYaml(readText(join(REPO_ROOT, file))));
  if ('problem' in reference && typeof reference.problem === 'string') throw new Error(`${file} cannot be read: ${reference.problem}`);
  return reference as T;
}

/** The files under a folder of a checkout whose path matches, in order, with their text. */
function checkoutTexts(checkout: string, dir: string, pattern: RegExp): { name: string; text: string }[] {
  return (existsSync(join(checkout, dir)) ? readdirSync(join(checkout, dir), { recursive: true, encoding: 'utf8' }) : [])
    .map((f) => `${dir}/${f.split(sep).join('/')}`)
    .filter((f) => pattern.test(f))
    .sort()
    .map((name) => ({ name, text: readText(join(checkout, name)) }));
}

/** Whether the reference the repository keeps is what the checkout's source says, and how to refresh it if not. */
const sameAsCheckout = (file: string, o: { same: boolean; what: string; source: string; refresh: string }): string =>
  `  ${file}'s ${o.what} ${o.same ? 'are' : 'are not'} this checkout's ${o.source}${o.same ? '' : `: refresh it with npm run ${o.refresh}`}\n`;

export function reportTempo(checkout: string, print: (line: string) => void): void {
  const reference = keptReference(facts.TEMPO_REFERENCE, conformance.tempoFields);
  const files = checkoutTexts(checkout, 'example/docker-compose', conformance.TEMPO_CONFIG_FILES);
  report(
    `Tempo's own example configurations (example/docker-compose), against the reference of Tempo ${reference.version}`,
    conformance.tempoConfigAgreement(conformance.tempoConfigCases(files, reference)),
    print,
  );
  const same = JSON.stringify(manifestTree(readText(join(checkout, 'docs/sources/tempo/configuration/manifest.md')))) === JSON.stringify(reference.fields);
  print(sameAsCheckout(facts.TEMPO_REFERENCE, { same, what: 'fields', source: 'manifest', refresh: 'tempo:reference' }));
}

export function reportTraefik(checkout: string, print: (line: string) => void): void {
  const reference = keptReference(facts.TRAEFIK_OPTIONS, conformance.traefikOptions);
  const pages = checkoutTexts(checkout, 'docs/content', conformance.TRAEFIK_DOC_PAGES);
  report(
    `Traefik's own command-line examples (the CLI tabs of docs/content), against the reference of Traefik ${reference.version}`,
    conformance.traefikFlagAgreement(conformance.traefikFlagCases(pages, reference)),
    print,
  );
  const table = conformance.traefikOptions({ version: reference.version, options: tableOptions(readText(join(checkout, TRAEFIK_TABLE))) });
  const same = 'options' in table && JSON.stringify(table.options) === JSON.stringify(reference.options);
  print(sameAsCheckout(facts.TRAEFIK_OPTIONS, { same, what: 'options', source: 'table', refresh: 'traefik:reference' }));
}
