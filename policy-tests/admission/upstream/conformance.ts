/**
 * Agreement with Kubernetes' own test data, as pure functions of what the
 * caller read from upstream checkouts (scripts/conformance.ts reads them;
 * nothing upstream is committed):
 *   - Pod Security: k8s.io/pod-security-admission's generated fixtures,
 *     test/testdata/<level>/v1.<minor>/{pass,fail}/<check><n>.yaml;
 *   - the CEL libraries' function list: the names
 *     k8s.io/apiserver's library_compatibility_test.go assigns to a release;
 *   - the cases of TestValidationExpressions (validation-expressions.ts).
 */
import { controlExists, LATEST_POLICY_MINOR, OVERRIDDEN_AT_RESTRICTED, podSecurityViolations, type Level } from '../pod-security/pod-security.ts';
import { compileRule, evaluateMetered, implementedFunctions } from '../cel/crd-rules.ts';
import { asOptional } from '../cel/optional.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';

/** A CEL list the engine gives against a plain one: by element. */
const celValueEquals = (a: unknown, b: unknown): boolean =>
  Array.isArray(b) ? [...(a as Iterable<unknown>)].length === b.length && [...(a as Iterable<unknown>)].every((v, i) => celValueEquals(v, b[i])) : a === b;

export interface PodSecurityFixture {
  level: Exclude<Level, 'privileged'>;
  expect: 'pass' | 'fail';
  /** The file name without its number: the check it exercises, lower-cased (procmount_restricted). */
  check: string;
  file: string;
  pod: Record<string, unknown>;
  /** The policy version the fixture is of (its v1.<minor> folder), at which it is judged; the newest where not given. */
  minor?: number;
}

/** The fixture's check from its file name: `procmount_restricted0.yaml` → `procmount_restricted`. */
export const fixtureCheck = (fileName: string): string => fileName.replace(/\.ya?ml$/, '').replace(/\d+$/, '');

/**
 * A pass fixture must meet its level with no violation; a fail fixture must be refused at its level by the control
 * it is named after (upstream's id, lower-cased, as the fixture files spell it).
 */
export function podSecurityAgreement(fixtures: readonly PodSecurityFixture[]): Agreement {
  const a = emptyAgreement();
  for (const f of fixtures) {
    const meta = (f.pod.metadata ?? {}) as Record<string, unknown>;
    const violations = podSecurityViolations(f.level, meta, (f.pod.spec ?? {}) as Record<string, unknown>, f.minor);
    const controls = [...new Set(violations.map((v) => v.control.toLowerCase()))];
    if (f.expect === 'pass')
      count(a, { group: f.check, ok: controls.length === 0, file: f.file, why: `refused by ${controls.join(', ')}, upstream admits it` });
    else {
      // At restricted, a baseline check another one overrides is not run: the overriding check refuses instead.
      const by = [...OVERRIDDEN_AT_RESTRICTED].find(([baseline]) => baseline.toLowerCase() === f.check)?.[1];
      const override = by !== undefined && controlExists(by, f.minor ?? LATEST_POLICY_MINOR) ? by.toLowerCase() : undefined;
      const expected = f.level === 'restricted' && override ? override : f.check;
      count(a, {
        group: f.check,
        ok: controls.includes(expected),
        file: f.file,
        why: controls.length ? `refused by ${controls.join(', ')}, not ${expected}` : 'admitted, upstream refuses it',
      });
    }
  }
  return a;
}

/**
 * The Kubernetes library function names up to a minor version, from library_compatibility_test.go's
 * `// Kubernetes <1.NN>:` comment lines and the quoted names after each.
 */
export function libraryFunctionNames(goSource: string, minor: number): string[] {
  const names = new Set<string>();
  let release: number | undefined;
  for (const line of goSource.split('\n')) {
    const heading = /\/\/\s*Kubernetes\s*<?1\.(\d+|\?\?)>?:/.exec(line);
    if (heading) {
      release = heading[1] === '??' ? undefined : Number(heading[1]);
      continue;
    }
    if (release === undefined || release > minor) continue;
    if (/^\s*\)/.test(line)) break;
    for (const m of line.matchAll(/"([A-Za-z_.]+)"/g)) names.add(m[1]!);
  }
  return [...names].sort();
}

/** Which of these function names the gate's evaluator implements. */
export function functionAgreement(names: readonly string[]): Agreement {
  const a = emptyAgreement();
  const known = implementedFunctions();
  for (const name of names) count(a, { group: 'functions', ok: known.has(name), file: name, why: 'not implemented by the gate' });
  return a;
}

/** One case of k8s.io/apiserver's pkg/cel/library tests: an expression and what the API server's environment gives. */
export interface LibraryCase {
  file: string;
  name: string;
  expr: string;
  /** A value to compare, `value` for a typed value only the API server can print (any non-error result agrees), or an error. */
  expect:
    | { value: unknown }
    | { anyValue: true }
    | { runtimeError: true }
    | { compileError: true }
    /** An optional: empty for optional.none(), else its one value (a list of strings, as the format library gives). */
    | { optional: readonly unknown[] }
    | { unknown: string };
}

const GO_STRING = /`([^`]*)`|"((?:[^"\\]|\\.)*)"/;
const unquote = (m: RegExpExecArray): string => m[1] ?? JSON.parse(`"${m[2]!}"`);

/** The expected value a Go test spells (trueVal, types.Int(3), types.String("x"), int4, ...). */
function goValue(token: string, locals: ReadonlyMap<string, string>): LibraryCase['expect'] {
  const t = locals.get(token) ?? token;
  if (t === 'types.Bool(true)' || t === 'types.True') return { value: true };
  if (t === 'types.Bool(false)' || t === 'types.False') return { value: false };
  const int = /^types\.Int\((-?\d+)\)$/.exec(t);
  if (int) return { value: BigInt(int[1]!) };
  const str = /^types\.String\((.*)\)$/.exec(t);
  if (str) {
    const m = GO_STRING.exec(str[1]!);
    if (m) return { value: unquote(m) };
  }
  const dbl = /^types\.Double\(([-\d.e]+)\)$/.exec(t);
  if (dbl) return { value: Number(dbl[1]) };
  if (t === 'types.OptionalNone') return { optional: [] };
  const stringList = /^types\.OptionalOf\(types\.NewStringList\(types\.DefaultTypeAdapter,\s*\[\]string\{([\s\S]*)\}\)\)$/.exec(t);
  if (stringList) return { optional: [[...stringList[1]!.matchAll(new RegExp(GO_STRING, 'g'))].map((m) => unquote(m as RegExpExecArray))] };
  if (/^apiservercel\./.test(t)) return { anyValue: true };
  return { unknown: t };
}

/** The Go expression at the start of `text`: up to the comma or line end outside any bracket or string. */
function goExpression(text: string): string {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === '`') {
      const m = GO_STRING.exec(text.slice(i));
      if (m?.index === 0) {
        i += m[0].length - 1;
        continue;
      }
    }
    if ('({['.includes(c)) depth++;
    else if (')}]'.includes(c)) depth--;
    else if (depth === 0 && (c === ',' || c === '\n')) return text.slice(0, i).trim();
  }
  return text.trim();
}

/** The cases of one library test file: each `{ ... expr: ..., expect...: ... }` block of its table. */
export function libraryCases(file: string, goSource: string): LibraryCase[] {
  const locals = new Map<string, string>();
  for (const m of goSource.matchAll(/^\s*(\w+)\s*:=\s*(types\.\w+\([^)]*\))\s*$/gm)) locals.set(m[1]!, m[2]!);
  const out: LibraryCase[] = [];
  // A case starts at a `{` line and ends at the `},` that closes it; cases hold no nested braces but a value's struct.
  const blocks = goSource.split(/\n\t\t\{\n/).slice(1);
  for (const block of blocks) {
    const body = block.split(/\n\t\t\},?\n/)[0]!;
    const exprMatch = /\bexpr:\s*/.exec(body);
    if (!exprMatch) continue;
    const rest = body.slice(exprMatch.index + exprMatch[0].length);
    const quoted = GO_STRING.exec(rest);
    if (!quoted || quoted.index !== 0) continue;
    const expr = unquote(quoted);
    const name = (() => {
      const n = /\bname:\s*/.exec(body);
      const q = n && GO_STRING.exec(body.slice(n.index + n[0].length));
      return q ? unquote(q) : expr;
    })();
    let expect: LibraryCase['expect'] | undefined;
    if (/\bexpect(ed)?CompileErrs?:/.test(body)) expect = { compileError: true };
    else if (/\bexpect(ed)?RuntimeErr(Pattern)?:/.test(body)) expect = { runtimeError: true };
    else {
      const v = /\bexpect(?:Result|Value|edResult):\s*/.exec(body);
      if (v) expect = goValue(goExpression(body.slice(v.index + v[0].length)), locals);
    }
    if (expect) out.push({ file, name, expr, expect });
  }
  return out;
}

/** Each case through the gate's own compile and evaluation, as a CRD rule with no variables. */
export function libraryAgreement(cases: readonly LibraryCase[]): Agreement {
  const a = emptyAgreement();
  for (const c of cases) {
    const group = c.file.replace(/_test\.go$/, '');
    if ('unknown' in c.expect) {
      count(a, { group, ok: false, file: `${c.file}: ${c.name}`, why: `expects ${c.expect.unknown}, which the gate cannot represent` });
      continue;
    }
    const compiled = compileRule(c.expr);
    if ('compileError' in c.expect) {
      count(a, {
        group,
        ok: !compiled.ok && compiled.refused,
        file: `${c.file}: ${c.name}`,
        why: compiled.ok ? 'compiles, upstream refuses it' : 'not judged, upstream refuses it',
      });
      continue;
    }
    if (!compiled.ok) {
      count(a, { group, ok: false, file: `${c.file}: ${c.name}`, why: `does not compile here: ${compiled.why}` });
      continue;
    }
    const run = evaluateMetered(() => compiled.evaluate({}));
    const failed = run.overLimit || run.value instanceof Error;
    if ('runtimeError' in c.expect) count(a, { group, ok: failed, file: `${c.file}: ${c.name}`, why: `gives ${String(run.value)}, upstream an error` });
    else if ('anyValue' in c.expect) count(a, { group, ok: !failed, file: `${c.file}: ${c.name}`, why: `fails: ${(run.value as Error)?.message}` });
    else if ('optional' in c.expect) {
      const want = c.expect.optional;
      const held = failed ? undefined : asOptional(run.value);
      const same = held !== undefined && held.length === want.length && held.every((v, i) => celValueEquals(v, want[i]));
      count(a, {
        group,
        ok: same,
        file: `${c.file}: ${c.name}`,
        why: `gives ${failed ? (run.value as Error)?.message : JSON.stringify(held ?? String(run.value))}, upstream ${JSON.stringify(want)}`,
      });
    } else {
      const want = c.expect.value;
      count(a, {
        group,
        ok: !failed && run.value === want,
        file: `${c.file}: ${c.name}`,
        why: `gives ${failed ? (run.value as Error)?.message : String(run.value)}, upstream ${String(want)}`,
      });
    }
  }
  return a;
}

export type { Agreement };
export { crdDefinitionAgreement, crdDefinitionCases } from './crd-definition-cases.ts';
export { ipCases, metadataMapCases, syntaxAgreement, syntaxCases } from './apimachinery-validation.ts';
export { deprecationWarningAgreement, deprecationWarningCases } from './crd-deprecation-warnings.ts';
export { templatePatchAgreement, templatePatchCases } from './argocd-template-patch.ts';
export { strategicMergePatchAgreement, strategicMergePatchCases } from './strategic-merge-patch-cases.ts';
export { quantityAgreement, quantityCases } from './quantity-cases.ts';
export { falcoParserAgreement, falcoParserCases } from './falco-parser-cases.ts';
export { falcoLoaderAgreement, falcoLoaderCases } from './falco-loader-cases.ts';
export { falcoPluginAgreement, falcoPluginCases } from './falco-plugin-cases.ts';
export { certManagerAgreement, certManagerCases } from './cert-manager-cases.ts';
export { certManagerIssuerAgreement, certManagerIssuerCases } from './cert-manager-issuer-cases.ts';
export { certManagerSolverAgreement, certManagerSolverCases } from './cert-manager-solver-cases.ts';
export { schedulingAgreement, schedulingCases } from './scheduling-cases.ts';
export { externalSecretsAgreement, externalSecretsCases } from './external-secrets-cases.ts';
export { externalSecretsTemplateAgreement, externalSecretsTemplateCases } from './external-secrets-template-cases.ts';
export { metallbAgreement, metallbCases } from './metallb-cases.ts';
export { metallbAllocatorAgreement, metallbAllocatorCases } from './metallb-allocator-cases.ts';
export {
  goTemplateAgreement,
  goTemplateCases,
  operatorAdmissionAgreement,
  operatorAdmissionCases,
  promqlAgreement,
  promqlCases,
  relabelAgreement,
  relabelCases,
  ruleFileAgreement,
  ruleFileCases,
} from './prometheus-rule-cases.ts';
export { operatorConfigAgreement, operatorConfigCases } from './prometheus-config-cases.ts';
export { kubeletSysctlAgreement, kubeletSysctlCases } from './kubelet-sysctl-cases.ts';
export { kubeletExpansionAgreement, kubeletExpansionCases } from './kubelet-expansion-cases.ts';
export { rookPoolAgreement, rookPoolCases } from './rook-pool-cases.ts';
export { cronAgreement, cronCases } from './cron-cases.ts';
export { requestInfoAgreement, requestInfoCases } from './apiserver-requestinfo.ts';
export { extendedFormatCases, formatAgreement, strfmtCases } from './kube-openapi-formats.ts';
export { suiteAgreement, suiteCases } from './kube-openapi-suite.ts';
export { defaultingAgreement, defaultingCases } from './structural-defaulting-cases.ts';
export { healthAgreement, healthCases } from './argocd-health-scripts.ts';
export { pruningAgreement, pruningCases } from './crd-pruning-cases.ts';
export { kubeconformAgreement, kubeconformCases } from './kubeconform-acceptance.ts';
export { celCostStabilityCases, validationAgreement, validationExpressionCases } from './validation-expressions.ts';
export { estimatedCostAgreement, estimatedCostCases } from './estimated-cost.ts';
export { repoServerAgreement, repoServerCases } from './argocd-repo-server.ts';
export { yamlSuiteAgreement, type YamlSuiteCase } from './yaml-test-suite.ts';
export { goYamlMatrixAgreement, goYamlVerdict, matrixInputs, type GoYamlMatrixCase } from './go-yaml-matrix.ts';
export { hookTestAgreement } from './argocd-hooks.ts';
export { impersonationAgreement, impersonationCases } from './argocd-impersonation.ts';
export { pathAgreement, pathCases, symlinkAgreement, symlinkCases } from './argocd-symlinks.ts';
export { appSetValidationAgreement, appSetValidationCases } from './argocd-appset-validation.ts';
export { sortAgreement, sortCases } from './argocd-sync-order.ts';
export { projectAgreement } from './argocd-projects.ts';
export { applicationSetTemplateAgreement, applicationSetTemplateCases } from './argocd-applicationset.ts';
export { generatorAgreement, generatorCases } from './argocd-appset-generators.ts';
export {
  compatibilityCases,
  defaultEtcdVersion,
  kubernetesPathAgreement,
  tagMinor,
  talosFactsAgreement,
  talosKubernetesAgreement,
  talosPackage,
  talosPackageName,
  talosUpgradeAgreement,
} from './talos.ts';
export { blackboxConfigAgreement, blackboxConfigCases } from './blackbox-config-cases.ts';
export { LOKI_CONFIG_FILES, lokiConfigAgreement, lokiConfigCases } from './loki-config-cases.ts';
export { alertmanagerConfigAgreement, alertmanagerConfigCases, alertmanagerMatcherCases } from './alertmanager-config-cases.ts';
export { alertmanagerInhibitAgreement, alertmanagerInhibitCases } from './alertmanager-inhibit-cases.ts';
export { TEMPO_CONFIG_FILES, tempoConfigAgreement, tempoConfigCases } from './tempo-config-cases.ts';
export { alloySyntaxAgreement, alloySyntaxCases } from './alloy-syntax-cases.ts';
export { alloyDecoderAgreement, alloyDecoderCases, type AlloyDecoderRow } from './alloy-decoder-cases.ts';
export { tempoFields } from '../../model/tempo/config.ts';
export { TRAEFIK_DOC_PAGES, traefikFlagAgreement, traefikFlagCases } from './traefik-flag-cases.ts';
export { traefikOptions } from '../../model/traefik/options.ts';
export { referenceCatalog as lokiReferenceCatalog, referenceTypes as lokiReferenceTypes } from '../../model/loki/reference.ts';
export { alloyEvaluateAgreement, alloyEvaluateCases, alloyEvaluateRows } from './alloy-evaluate-cases.ts';
export { fieldSelectorAgreement, fieldSelectorCases } from './field-selector-cases.ts';
export { labelSelectorAgreement, labelSelectorCases } from './label-selector-cases.ts';
export { alloyRelabelAgreement, alloyRelabelCases } from './alloy-relabel-cases.ts';
