/**
 * External Secrets' own validation tests (apis/externalsecrets/v1: `TestValidateExternalSecret` in
 * externalsecret_validator_test.go, `TestSecretStoreSpecGetRefreshInterval` in secretstore_types_test.go), read as
 * data. Each ExternalSecret is written as the v1 JSON its Go value marshals to (the fields' types and JSON tags read
 * from the same checkout, as the cert-manager readers do) and judged by the gate's port of the webhook
 * (admission/webhooks/external-secrets.ts); a row agrees when the errors it joins are exactly the row's text, or there
 * are none where it expects none. A refresh interval row agrees when the gate refuses exactly those upstream errors
 * on. The nil ExternalSecret row is declined: the API server never sends the webhook nothing.
 */
import { externalSecretRefusals, refreshIntervalProblem } from '../webhooks/external-secrets.ts';
import { textAgreement, type Agreement, type DecliningTable, type TextCase } from './agreement.ts';
import { environment, structsOf, toV1 } from './cert-manager-go.ts';
import { blockAt, GoParser, GoUnsupported, structTableRows, tokenize } from './go-literals.ts';

export type ExternalSecretsCase = TextCase & { test: 'TestValidateExternalSecret' | 'TestSecretStoreSpecGetRefreshInterval' };
export type ExternalSecretsTable = DecliningTable<ExternalSecretsCase>;

/** The core/v1 constants the table uses, as the API spells them. */
const CORE: Readonly<Record<string, string>> = {
  'corev1.SecretTypeServiceAccountToken': 'kubernetes.io/service-account-token',
  'corev1.SecretTypeBootstrapToken': 'bootstrap.kubernetes.io/token',
  'corev1.SecretTypeOpaque': 'Opaque',
  'corev1.ServiceAccountNameKey': 'kubernetes.io/service-account.name',
};

const bodyOf = (source: string, test: string): string => {
  const start = source.indexOf(`func ${test}(`);
  return start === -1 ? '' : blockAt(source, source.indexOf('{', start));
};

/** Both tests' rows, from the test files and the package's own sources (its types and constants) of one checkout. */
export function externalSecretsCases(sources: { validatorTest: string; typesTest: string; v1: readonly string[] }): ExternalSecretsTable {
  const structs = structsOf(sources.v1);
  const constants: Record<string, string> = { ...CORE };
  for (const src of [...sources.v1, sources.validatorTest])
    for (const m of src.matchAll(/^\t(\w+)\s+(?:\w+\s*)?=\s*"((?:[^"\\]|\\.)*)"/gm)) constants[m[1]!] = JSON.parse(`"${m[2]}"`) as string;
  const env = environment('', new Map(), constants);
  const table: ExternalSecretsTable = { cases: [], declined: [], unread: [] };
  for (const { text, row, why } of structTableRows(bodyOf(sources.validatorTest, 'TestValidateExternalSecret'), /tests/, env)) {
    const name = /name:\s*"([^"]*)"/.exec(text)?.[1] ?? text.slice(0, 40);
    if (!row) table.unread.push({ name: `TestValidateExternalSecret/${name}`, why: why! });
    else if (row.obj === null || row.obj === undefined)
      table.declined.push({ name: `TestValidateExternalSecret/${name}`, why: 'the API server never sends the webhook a nil object' });
    else
      try {
        const es = toV1(row.obj, 'ExternalSecret', structs) as { spec?: unknown };
        const want = typeof row.expectedErr === 'string' ? row.expectedErr : '';
        table.cases.push({
          test: 'TestValidateExternalSecret',
          name,
          want,
          judge: () =>
            externalSecretRefusals(es.spec)
              .map((r) => r.message)
              .join('\n'),
        });
      } catch (err) {
        table.unread.push({ name: `TestValidateExternalSecret/${name}`, why: (err as Error).message });
      }
  }
  table.cases.push(...refreshCases(bodyOf(sources.typesTest, 'TestSecretStoreSpecGetRefreshInterval'), table));
  return table;
}

/** The refresh interval rows: each local `x := intstr.FromInt32(n)` or `intstr.FromString("s")` read as its value. */
function refreshCases(body: string, table: ExternalSecretsTable): ExternalSecretsCase[] {
  const locals = new Map<string, unknown>();
  for (const m of body.matchAll(/^\t(\w+) := intstr\.From(?:Int32|Int)\((-?\d+)\)$/gm)) locals.set(m[1]!, Number(m[2]));
  for (const m of body.matchAll(/^\t(\w+) := intstr\.FromString\(("(?:[^"\\]|\\.)*")\)$/gm)) locals.set(m[1]!, JSON.parse(m[2]!));
  const env = {
    value: (name: string) => {
      if (name === 'time.Second') return 1e9;
      if (name === 'time.Hour') return 3600e9;
      if (locals.has(name)) return locals.get(name);
      throw new GoUnsupported(`unknown identifier ${name}`);
    },
    call: (name: string): never => {
      throw new GoUnsupported(`unknown function ${name}`);
    },
  };
  const out: ExternalSecretsCase[] = [];
  for (const m of body.matchAll(/^\t\t\{(name: "[^"]*",[^\n]*)\},$/gm)) {
    try {
      const row = new GoParser(tokenize(m[1]!), env).fields();
      out.push({
        test: 'TestSecretStoreSpecGetRefreshInterval',
        name: String(row.name),
        want: String(row.wantErr === true),
        judge: () => String(refreshIntervalProblem(row.in) !== undefined),
      });
    } catch (err) {
      table.unread.push({ name: `TestSecretStoreSpecGetRefreshInterval/${m[1]!.slice(0, 40)}`, why: (err as Error).message });
    }
  }
  return out;
}

/** How many rows the gate judges as External Secrets does, each answer as JSON (the errors it joins span lines). */
export const externalSecretsAgreement = (table: ExternalSecretsTable): Agreement => textAgreement(table, 'External Secrets', (t) => JSON.stringify(t));
