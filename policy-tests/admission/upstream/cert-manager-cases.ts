/**
 * cert-manager's TestValidateCertificate and TestValidateDuration (internal/apis/certmanager/validation/
 * certificate_test.go), read as data. Each row is an internal Certificate; it is written here as the
 * cert-manager.io/v1 object its fields convert to, each field named by its JSON tag in the v1 type it belongs to
 * (pkg/apis/certmanager/v1, pkg/apis/meta/v1 of the same checkout; the reading all cert-manager readers share,
 * cert-manager-go.ts), its constants read from the internal types. The gate judges it as `cert-manager-webhook` does (TestValidateDuration's rows by the duration rule alone,
 * as the test calls it), and the row agrees when the gate refuses exactly the errors the test expects, each by its
 * type and field; a label or annotation the gate places on its key's line is compared at its map, which upstream
 * names. A row that turns a feature gate off (NameConstraints) is declined: the webhook runs with it on. A row this
 * reader cannot follow is counted as not read, with why.
 */
import { certificateProblems, durationProblems } from '../webhooks/cert-manager.ts';
import { count, emptyAgreement, type Agreement, type DecliningTable, countUnread } from './agreement.ts';
import { environment, mapTableRows, structsOf, toV1 } from './cert-manager-go.ts';
import { blockAt } from './go-literals.ts';

type Go = Record<string, any>;

export interface CertManagerCase {
  test: 'TestValidateCertificate' | 'TestValidateDuration';
  name: string;
  /** The cert-manager.io/v1 Certificate spec the row's internal spec converts to. */
  spec: Record<string, unknown>;
  /** Each expected error as `<type> <field>`: field.ErrorType's Go name and field.Path's spelling. */
  errors: string[];
}

export type CertManagerTable = DecliningTable<CertManagerCase>;

/** The values the Certificate tables name beside the types' constants: cert-manager's limits, a valid issuerRef. */
const CERTIFICATE_VALUES: Readonly<Record<string, unknown>> = {
  'cmapi.MinimumRenewBefore': 5 * 60e9,
  'cmapi.MinimumCertificateDuration': 3600e9,
  'cmapi.DefaultCertificateDuration': 90 * 24 * 3600e9,
  validIssuerRef: { Name: 'name', Kind: 'ClusterIssuer' },
  someAdmissionRequest: {},
  maxSecretTemplateAnnotationsBytesLimit: 256 * 1024,
};

/** TestValidateDuration's named durations (`usefulDurations["one month"]`), written in place, and their `.Duration`. */
function inlineUsefulDurations(body: string): string {
  const table = /usefulDurations := map\[string\]\*metav1\.Duration\{([\s\S]*?)\n\t\}/.exec(body)?.[1] ?? '';
  let out = body;
  for (const m of table.matchAll(/"([^"]+)":\s*\{\s*Duration:\s*([^}]*?)\s*\}/g)) {
    out = out.split(`usefulDurations["${m[1]}"].Duration`).join(m[2]!);
    out = out.split(`usefulDurations["${m[1]}"]`).join(`&metav1.Duration{Duration: ${m[2]}}`);
  }
  return out;
}

/**
 * The two tests' rows, from the test file, the v1 types' sources (their JSON tags) and the internal types' sources
 * (their string constants), all of one checkout.
 */
export function certManagerCases(testSource: string, v1Sources: readonly string[], internalSources: readonly string[]): CertManagerTable {
  const structs = structsOf(v1Sources);
  const constants: Record<string, unknown> = { ...CERTIFICATE_VALUES };
  for (const src of internalSources) for (const m of src.matchAll(/^\t(\w+)\s+\w+\s*=\s*"([^"]*)"/gm)) constants[`internalcmapi.${m[1]}`] = m[2]!;
  const env = environment('spec', new Map(), constants);
  const table: CertManagerTable = { cases: [], declined: [], unread: [] };
  for (const test of ['TestValidateCertificate', 'TestValidateDuration'] as const) {
    const start = testSource.indexOf(`func ${test}(`);
    if (start === -1) continue;
    const body = inlineUsefulDurations(blockAt(testSource, testSource.indexOf('{', start)));
    for (const { name, row, why } of mapTableRows(body, env)) {
      const named = `${test}/${name}`;
      if (!row) {
        table.unread.push({ name: named, why: why! });
        continue;
      }
      const internal = (row.cfg as Go | undefined)?.Spec ?? {};
      if ('NameConstraints' in internal && row.nameConstraintsFeatureEnabled !== true) {
        table.declined.push({ name: named, why: 'it turns the NameConstraints feature gate off, which the webhook runs on' });
        continue;
      }
      try {
        const errors = ((row.errs ?? []) as Go[]).map((e) => `${String(e.type)} ${String(e.field)}`);
        table.cases.push({ test, name, spec: toV1(internal, 'CertificateSpec', structs) as Record<string, unknown>, errors });
      } catch (err) {
        table.unread.push({ name: named, why: (err as Error).message });
      }
    }
  }
  return table;
}

/** field.ErrorType's Go name for each of the gate's messages, by the words they start with. */
const ERROR_TYPES: ReadonlyArray<readonly [string, string]> = [
  ['Invalid value', 'Invalid'],
  ['Required value', 'Required'],
  ['Forbidden', 'Forbidden'],
  ['Unsupported value', 'NotSupported'],
  ['Too long', 'TooLong'],
  ['Duplicate value', 'Duplicate'],
];

/** A gate refusal as `<type> <field>`, a map key's place compared at the map (labels, annotations), as upstream names it. */
function asError(p: { path: (string | number)[]; fn: string; message: string }): string {
  const type = p.fn === 'ValidateAnnotationsSize' ? 'TooLong' : (ERROR_TYPES.find(([words]) => p.message.startsWith(words))?.[1] ?? 'Invalid');
  const map = p.path.findIndex((s) => s === 'labels' || s === 'annotations');
  const path = map === -1 ? p.path : p.path.slice(0, map + 1);
  return `${type} ${path.map((s, i) => (typeof s === 'number' ? `[${s}]` : `${i ? '.' : ''}${s}`)).join('')}`;
}

/** How many rows the gate judges as cert-manager's webhook does: exactly the errors each row expects, by type and field. */
export function certManagerAgreement(table: CertManagerTable): Agreement {
  const a = emptyAgreement();
  // An error of a map's key (`[type]` of additionalOutputFormats) is upstream's spelling of the list it is in.
  const field = (e: string) => e.replace(/\[[^\]\d][^\]]*\]/g, '');
  for (const c of table.cases) {
    const got = (c.test === 'TestValidateDuration' ? durationProblems(c.spec, ['spec']) : certificateProblems(c.spec)).map(asError).sort();
    const want = c.errors.map(field).sort();
    const ok = JSON.stringify(got) === JSON.stringify(want);
    count(a, { group: c.test, ok, file: `${c.test}/${c.name}`, why: `the gate refuses [${got.join(', ')}], cert-manager [${want.join(', ')}]` });
  }
  countUnread(a, table.unread);
  return a;
}
