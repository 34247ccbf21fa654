/**
 * cert-manager's Issuer validation tests (internal/apis/certmanager/validation/issuer_test.go), read as data. Each
 * table names the function it calls and the object it gives it; the object is written here as the v1 JSON it
 * converts to, field by field by the Go type each field has in the v1 sources of the same checkout (an embedded
 * struct's fields inline, `json:"..."` tags, `[]byte` as base64), and the gate's port of that same function judges
 * it (admission/webhooks/cert-manager-issuer.ts). A row agrees when the gate gives exactly the errors it expects, in
 * its order, each by type, field and detail (and the warnings, where the row says them); a Gateway parentRef row
 * when an error holds the words it wants, or none when it wants none. A freshly made certificate
 * (`unitcrypto.MustCreateCryptoBundle`) is stood in for by a fixed self-signed one: the webhook only asks that a
 * bundle hold one. A row this reader cannot follow is counted as not read, with why.
 */
import type { Invalid } from '../validation/metadata.ts';
import {
  acmeIssuerProblems,
  dns01Problems,
  http01Problems,
  issuerSpecProblems,
  secretKeySelectorProblems,
  vaultAuthProblems,
  vaultIssuerProblems,
  venafiIssuerProblems,
  venafiNGTSProblems,
  venafiTPPProblems,
  type IssuerVerdict,
} from '../webhooks/cert-manager-issuer.ts';
import { count, emptyAgreement, type Agreement, type UpstreamTable, countUnread } from './agreement.ts';
import { definitionsOf, environment, mapTableRows, structsOf, toV1, type GoField } from './cert-manager-go.ts';
import { asManifest, blockAt, GoUnsupported, structTableRows, type GoEnvironment } from './go-literals.ts';

type Go = Record<string, any>;
type Judge = (value: unknown, at: (string | number)[]) => IssuerVerdict;

const errorsOnly =
  (judge: (value: unknown, at: (string | number)[]) => Invalid[]): Judge =>
  (value, at) => ({ errors: judge(value, at), warnings: [] });

/** Each table: the row field holding the object, its Go type, and the function the test calls on it. */
const TABLES: Readonly<Record<string, { field: string; type: string; judge: Judge }>> = {
  TestValidateVaultIssuerConfig: { field: 'spec', type: 'VaultIssuer', judge: errorsOnly(vaultIssuerProblems) },
  TestValidateVaultIssuerAuth: { field: 'auth', type: 'VaultAuth', judge: errorsOnly(vaultAuthProblems) },
  TestValidateACMEIssuerConfig: { field: 'spec', type: 'ACMEIssuer', judge: acmeIssuerProblems },
  TestValidateIssuerSpec: { field: 'spec', type: 'IssuerSpec', judge: issuerSpecProblems },
  TestValidateACMEIssuerHTTP01Config: { field: 'cfg', type: 'ACMEChallengeSolverHTTP01', judge: errorsOnly(http01Problems) },
  TestValidateACMEIssuerDNS01Config: { field: 'cfg', type: 'ACMEChallengeSolverDNS01', judge: errorsOnly(dns01Problems) },
  TestValidateSecretKeySelector: { field: 'selector', type: 'SecretKeySelector', judge: errorsOnly(secretKeySelectorProblems) },
  TestValidateVenafiIssuerConfig: { field: 'cfg', type: 'VenafiIssuer', judge: errorsOnly(venafiIssuerProblems) },
  TestValidateVenafiTPP: { field: 'cfg', type: 'VenafiTPP', judge: errorsOnly(venafiTPPProblems) },
  TestValidateVenafiNGTS: { field: 'cfg', type: 'VenafiNGTS', judge: errorsOnly(venafiNGTSProblems) },
};

export interface IssuerCase {
  test: string;
  name: string;
  /** The v1 JSON of the object the test gives its function. */
  value: unknown;
  /** The place the test gives (`field.NewPath("spec")`), '' for a nil path. */
  at: string;
  /** Each expected error as `<type> <field>: <detail>`; for a parentRef row, the words one error must hold. */
  errors: string[];
  warnings?: string[];
  contains?: string;
}

export type IssuerTable = UpstreamTable<IssuerCase>;

const expected = (e: Go): string => `${String(e.type)} ${String(e.field)}: ${String(e.detail ?? '')}`;

/** The place a test gives its function: `field.NewPath("x")`, or '' for a nil path. */
const pathOf = (body: string): string => /fldPath := field\.NewPath\("([^"]*)"\)/.exec(body)?.[1] ?? '';

/**
 * Every row of the tables above, and the Gateway parentRef rows, from the test file and the v1 types' sources (their
 * fields' types and JSON names, their string constants), all of one checkout.
 */
export function certManagerIssuerCases(testSource: string, v1Sources: readonly string[], validationSources: readonly string[]): IssuerTable {
  const structs = structsOf(v1Sources);
  const constants: Record<string, string> = {};
  for (const src of v1Sources)
    for (const m of src.matchAll(/^\t(\w+)\s+\w+\s*=\s*"([^"]*)"/gm)) for (const pkg of ['cmacme', 'cmapi']) constants[`${pkg}.${m[1]}`] = m[2]!;
  // The validation package's own words (warnings.go's constants), which the rows expect by name.
  for (const src of validationSources)
    for (const m of src.matchAll(/^\t(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"/gm)) constants[m[1]!] = JSON.parse(`"${m[2]}"`) as string;
  const table: IssuerTable = { cases: [], unread: [] };
  for (const m of testSource.matchAll(/^func (Test\w+)\(t \*testing\.T\) \{/gm)) {
    const test = m[1]!;
    // `[]byte(x)` is read as a call the environment answers; a pointer conversion `(*gwapi.Kind)(x)` as its operand.
    const body = blockAt(testSource, m.index + m[0].length - 1)
      .replace(/\[\]byte\(/g, 'byteText(')
      .replace(/\(\*[\w.]+\)\(/g, '(');
    const at = pathOf(body);
    const env = environment(at, definitionsOf(testSource, body, validationSources), constants);
    const spec = TABLES[test];
    if (spec)
      for (const { name, row, why } of mapTableRows(body, env)) {
        try {
          if (!row) throw new GoUnsupported(why!);
          const rowErrors = (row.errs ?? []) as Go[];
          table.cases.push({
            test,
            name,
            at,
            value: toV1(row[spec.field], spec.type, structs),
            errors: rowErrors.map(expected),
            ...(test === 'TestValidateACMEIssuerConfig' ? { warnings: (row.warnings ?? []) as string[] } : {}),
          });
        } catch (err) {
          table.unread.push({ name: `${test}/${name}`, why: (err as Error).message });
        }
      }
    if (test === 'TestValidateACMEIssuerGatewayParentRefs') table.cases.push(...parentRefCases(body, env, structs, table));
  }
  return table;
}

/** The parentRef rows: each row's refs on a valid ACME issuer's one Gateway HTTP-01 solver, as the test builds it. */
function parentRefCases(body: string, env: GoEnvironment, structs: Map<string, Map<string, GoField>>, table: IssuerTable): IssuerCase[] {
  const issuer = toV1(env.value('validACMEIssuer'), 'ACMEIssuer', structs) as Go;
  const out: IssuerCase[] = [];
  for (const { row, why, text } of structTableRows(body, /tests/, env)) {
    if (!row) {
      table.unread.push({ name: `TestValidateACMEIssuerGatewayParentRefs/${text.slice(0, 40)}`, why: why! });
      continue;
    }
    const value = { ...issuer, solvers: [{ http01: { gatewayHTTPRoute: { parentRefs: asManifest(row.parentRefs) } } }] };
    out.push({
      test: 'TestValidateACMEIssuerGatewayParentRefs',
      name: String(row.name),
      at: '',
      value,
      errors: [],
      contains: typeof row.wantErrContains === 'string' ? row.wantErrContains : '',
    });
  }
  return out;
}

/** A gate error as upstream's field.Error: its type, its field as field.Path prints it under the given place, its detail. */
function asUpstream(p: Invalid, at: string): { type: string; field: string; detail: string; text: string } {
  const type = p.message.startsWith('Required value')
    ? 'Required'
    : p.message.startsWith('Forbidden')
      ? 'Forbidden'
      : p.message.startsWith('Unsupported value')
        ? 'NotSupported'
        : 'Invalid';
  const field = p.path.reduce<string>((f, s) => (typeof s === 'number' ? `${f}[${s}]` : f === '' ? s : `${f}.${s}`), at);
  const detail =
    type === 'Invalid'
      ? p.message.replace(/^Invalid value: (?:"(?:[^"\\]|\\.)*"|[^:]*): /, '')
      : type === 'NotSupported'
        ? p.message.replace(/^.*?supported values: /, '')
        : p.message.replace(/^(?:Required value|Forbidden)(?:: )?/, '');
  return { type, field, detail, text: `${field}: ${p.message}` };
}

/** How many rows the gate judges as cert-manager's own functions do. */
export function certManagerIssuerAgreement(table: IssuerTable): Agreement {
  const a = emptyAgreement();
  for (const c of table.cases) {
    const spec = TABLES[c.test];
    const verdict = spec ? spec.judge(c.value, []) : acmeIssuerProblems(c.value, []);
    const got = verdict.errors.map((p) => asUpstream(p, c.at));
    let ok: boolean;
    let why: string;
    if (c.contains !== undefined) {
      ok = c.contains === '' ? got.length === 0 : got.some((g) => g.text.includes(c.contains!));
      why = `the gate refuses [${got.map((g) => g.text).join('; ')}], cert-manager wants ${c.contains ? `an error holding "${c.contains}"` : 'none'}`;
    } else {
      const mine = got.map((g) => `${g.type} ${g.field}: ${g.detail}`);
      ok = JSON.stringify(mine) === JSON.stringify(c.errors) && (c.warnings === undefined || JSON.stringify(verdict.warnings) === JSON.stringify(c.warnings));
      why = `the gate refuses [${mine.join('; ')}]${c.warnings ? ` warning [${verdict.warnings.join('; ')}]` : ''}, cert-manager [${c.errors.join('; ')}]${c.warnings ? ` warning [${c.warnings.join('; ')}]` : ''}`;
    }
    count(a, { group: c.test, ok, file: `${c.test}/${c.name}`, why });
  }
  countUnread(a, table.unread);
  return a;
}
