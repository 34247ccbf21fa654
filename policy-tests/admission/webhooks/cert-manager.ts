/**
 * What cert-manager's validating webhook refuses of a Certificate (cert-manager v1.21.1,
 * internal/apis/certmanager/validation/certificate.go, `ValidateCertificateSpec`, with its webhook's feature gates at
 * their defaults: LiteralCertificateSubject, NameConstraints and OtherNames on). The CRD's schema says the types and
 * the enums; the webhook says the rest, and refuses the apply in these words. A literalSubject's distinguished name
 * is not parsed here, and said not judged.
 */
import { isIP } from 'node:net';
import { list } from '../../model/core/dig.ts';
import type { PathSegment } from '../../model/core/positions.ts';
import { goDurationMs, loadLocation } from '../../model/core/time.ts';
import { parseCron, STANDARD } from '../../model/cron/robfig.ts';
import { parseMailAddress } from '../../model/go/mail.ts';
import { validateAnnotations, validateLabels, validateName, type Invalid } from '../validation/metadata.ts';
import { tooLong } from '../validation/syntax.ts';

type Obj = Record<string, any>;

const MIN_DURATION_MS = 60 * 60 * 1000;
const MIN_RENEW_BEFORE_MS = 5 * 60 * 1000;
const DEFAULT_DURATION_MS = 90 * 24 * MIN_DURATION_MS;

/** keyAlgToAllowedSigAlgs. */
const SIGNATURE_ALGORITHMS: Readonly<Record<string, readonly string[]>> = {
  RSA: ['SHA256WithRSA', 'SHA384WithRSA', 'SHA512WithRSA'],
  ECDSA: ['ECDSAWithSHA256', 'ECDSAWithSHA384', 'ECDSAWithSHA512'],
  Ed25519: ['PureEd25519'],
};

/** pkg/api/util's keyUsages and extKeyUsages: the usages cert-manager knows. */
const USAGES = new Set([
  'signing',
  'digital signature',
  'content commitment',
  'key encipherment',
  'key agreement',
  'data encipherment',
  'cert sign',
  'crl sign',
  'encipher only',
  'decipher only',
  'any',
  'server auth',
  'client auth',
  'code signing',
  'email protection',
  's/mime',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'timestamping',
  'ocsp signing',
  'microsoft sgc',
  'netscape sgc',
]);

const fn = 'ValidateCertificateSpec';
const invalid = (path: PathSegment[], message: string): Invalid => ({ path, fn, message });

/** Go's time.Duration printed as `String()` does, for the durations these messages name (whole h, m, s). */
function goDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  const [h, m, sec] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  return h > 0 ? `${h}h${m}m${sec}s` : m > 0 ? `${m}m${sec}s` : `${sec}s`;
}

/** A metav1.Duration as the webhook decodes it: time.ParseDuration, or the decode error. */
function duration(v: unknown, path: PathSegment[], out: Invalid[]): number | undefined {
  if (v === undefined || v === null) return undefined;
  const ms = typeof v === 'string' ? goDurationMs(v) : undefined;
  if (ms === undefined) out.push(invalid(path, `time: invalid duration ${JSON.stringify(typeof v === 'string' ? v : JSON.stringify(v))}`));
  return ms;
}

function issuerRefProblems(ref: Obj, at: PathSegment[]): Invalid[] {
  const out: Invalid[] = [];
  if (!ref?.name) out.push(invalid([...at, 'name'], 'Required value: must be specified'));
  const group = ref?.group ?? '';
  const kind = ref?.kind ?? '';
  if ((group === '' || group === 'cert-manager.io') && !['', 'Issuer', 'ClusterIssuer'].includes(kind))
    out.push(
      invalid(
        [...at, 'kind'],
        `Invalid value: ${JSON.stringify(kind)}: must be one of Issuer or ClusterIssuer${group === '' ? ` (did you forget to set spec.issuerRef.kind.group?)` : ''}`,
      ),
    );
  return out;
}

/** ValidateDuration: the duration (90 days when none is given), renewBefore and renewBeforePercentage. */
export function durationProblems(spec: Obj, at: PathSegment[]): Invalid[] {
  const out: Invalid[] = [];
  const given = duration(spec.duration, [...at, 'duration'], out);
  const d = given ?? DEFAULT_DURATION_MS;
  const renewBefore = duration(spec.renewBefore, [...at, 'renewBefore'], out);
  const percent = spec.renewBeforePercentage;
  if (d < MIN_DURATION_MS) out.push(invalid([...at, 'duration'], `Invalid value: ${goDuration(d)}: certificate duration must be greater than 1h0m0s`));
  if (renewBefore !== undefined && typeof percent === 'number') {
    const both = 'renewBefore and renewBeforePercentage are mutually exclusive and cannot both be set';
    out.push(
      invalid([...at, 'renewBefore'], `Invalid value: ${goDuration(renewBefore)}: ${both}`),
      invalid([...at, 'renewBeforePercentage'], `Invalid value: ${percent}: ${both}`),
    );
  }
  if (renewBefore !== undefined && renewBefore < MIN_RENEW_BEFORE_MS)
    out.push(invalid([...at, 'renewBefore'], `Invalid value: ${goDuration(renewBefore)}: certificate renewBefore must be greater than 5m0s`));
  if (renewBefore !== undefined && renewBefore >= d)
    out.push(
      invalid(
        [...at, 'renewBefore'],
        `Invalid value: ${goDuration(renewBefore)}: certificate duration ${goDuration(d)} must be greater than renewBefore ${goDuration(renewBefore)}`,
      ),
    );
  if (typeof percent === 'number') {
    const before = (d * (100 - percent)) / 100;
    if (before < MIN_RENEW_BEFORE_MS)
      out.push(
        invalid(
          [...at, 'renewBeforePercentage'],
          `Invalid value: ${percent}: certificate renewBeforePercentage must result in a renewBefore greater than 5m0s`,
        ),
      );
    if (before >= d)
      out.push(
        invalid(
          [...at, 'renewBeforePercentage'],
          `Invalid value: ${percent}: certificate renewBeforePercentage must result in a renewBefore less than duration`,
        ),
      );
  }
  return out;
}

function keyProblems(spec: Obj, at: PathSegment[]): Invalid[] {
  const out: Invalid[] = [];
  const key = (spec.privateKey ?? undefined) as Obj | undefined;
  const algorithm = key?.algorithm ?? '';
  const size = typeof key?.size === 'number' ? key.size : 0;
  if (key && (algorithm === '' || algorithm === 'RSA') && size > 0 && (size < 2048 || size > 8192))
    out.push(invalid([...at, 'privateKey', 'size'], `Invalid value: ${size}: must be between 2048 and 8192 for rsa keyAlgorithm`));
  else if (key && algorithm === 'ECDSA' && size > 0 && ![256, 384, 521].includes(size))
    out.push(invalid([...at, 'privateKey', 'size'], `Unsupported value: ${size}: supported values: "256", "384", "521"`));
  else if (key && !['', 'RSA', 'ECDSA', 'Ed25519'].includes(algorithm))
    out.push(invalid([...at, 'privateKey', 'algorithm'], `Invalid value: ${JSON.stringify(algorithm)}: must be either empty or one of rsa, ecdsa or ed25519`));
  const signature = spec.signatureAlgorithm;
  const allowed = SIGNATURE_ALGORITHMS[algorithm || 'RSA'];
  if (signature && allowed && !allowed.includes(signature))
    out.push(
      invalid(
        [...at, 'signatureAlgorithm'],
        `Invalid value: ${JSON.stringify(signature)}: for key algorithm ${algorithm || 'RSA'} the allowed signature algorithms are [${allowed.join(' ')}]`,
      ),
    );
  return out;
}

function nameProblems(spec: Obj, at: PathSegment[]): Invalid[] {
  const out: Invalid[] = [];
  const cn = typeof spec.commonName === 'string' ? spec.commonName : '';
  if (spec.literalSubject) {
    if (cn)
      out.push(invalid([...at, 'commonName'], `Invalid value: ${JSON.stringify(cn)}: When providing a \`LiteralSubject\` no \`commonName\` may be provided.`));
    const subject = (spec.subject ?? {}) as Obj;
    const fields = ['organizations', 'countries', 'organizationalUnits', 'localities', 'provinces', 'streetAddresses', 'postalCodes'];
    if (fields.some((f) => list(subject[f]).length > 0) || subject.serialNumber)
      out.push(invalid([...at, 'subject'], 'Invalid value: When providing a `LiteralSubject` no `Subject` properties may be provided.'));
  }
  const names = ['dnsNames', 'uris', 'emailAddresses', 'ipAddresses', 'otherNames'].some((f) => list(spec[f]).length > 0);
  if (!cn && !spec.literalSubject && !names)
    out.push(
      invalid(
        at,
        'Invalid value: "": at least one of commonName (from the commonName field or from a literalSubject), dnsNames, emailSANs, ipAddresses, otherNames, or uriSANs must be set',
      ),
    );
  if (Buffer.byteLength(cn) > 64) out.push(invalid([...at, 'commonName'], tooLong(64)));
  list(spec.ipAddresses).forEach((ip, i) => {
    if (typeof ip !== 'string' || isIP(ip) === 0 || ip.includes('%'))
      out.push(invalid([...at, 'ipAddresses', i], `Invalid value: ${JSON.stringify(ip)}: invalid IP address`));
  });
  list(spec.emailAddresses).forEach((email, i) => {
    const parsed = typeof email === 'string' ? parseMailAddress(email) : undefined;
    if (parsed === undefined) out.push(invalid([...at, 'emailAddresses', i], `Invalid value: ${JSON.stringify(email)}: invalid email address`));
    else if (parsed !== email)
      out.push(
        invalid(
          [...at, 'emailAddresses', i],
          `Invalid value: ${JSON.stringify(email)}: invalid email address: make sure the supplied value only contains the email address itself`,
        ),
      );
  });
  (list(spec.otherNames) as Obj[]).forEach((other, i) => {
    if (!other?.oid || !/^\d+(\.\d+)+$/.test(String(other.oid)))
      out.push(invalid([...at, 'otherNames', i, 'oid'], `Invalid value: ${JSON.stringify(other?.oid ?? '')}: invalid oid syntax`));
    if (typeof other?.utf8Value !== 'string' || other.utf8Value === '')
      out.push(invalid([...at, 'otherNames', i, 'utf8Value'], 'Required value: must be set to a valid non-empty UTF8 string'));
  });
  return out;
}

function keystoreProblems(spec: Obj, at: PathSegment[]): Invalid[] {
  const out: Invalid[] = [];
  for (const [key, label] of [
    ['jks', 'JKS'],
    ['pkcs12', 'PKCS#12'],
  ] as const) {
    const store = spec.keystores?.[key] as Obj | undefined;
    if (!store) continue;
    const literal = store.password;
    const ref = store.passwordSecretRef?.name;
    if (literal !== undefined && ref)
      out.push(
        invalid([...at, 'keystores', key], `Forbidden: exactly one of passwordSecretRef and password must be provided for ${label} keystores; cannot set both`),
      );
    if (literal === undefined && !ref)
      out.push(invalid([...at, 'keystores', key], `Forbidden: must set exactly one of passwordSecretRef and password must for ${label} keystores`));
    if (literal === '') out.push(invalid([...at, 'keystores', key, 'password'], `Forbidden: literal password cannot be empty if set on ${label} keystores`));
  }
  return out;
}

/** The rest of ValidateCertificateSpec: usages, revisions, the Secret's template, output formats, name constraints. */
function restProblems(spec: Obj, at: PathSegment[]): Invalid[] {
  const out: Invalid[] = [];
  list(spec.usages).forEach((u, i) => {
    if (!USAGES.has(String(u))) out.push(invalid([...at, 'usages', i], `Invalid value: ${JSON.stringify(u)}: unknown keyusage`));
  });
  if (typeof spec.revisionHistoryLimit === 'number' && spec.revisionHistoryLimit < 1)
    out.push(invalid([...at, 'revisionHistoryLimit'], `Invalid value: ${spec.revisionHistoryLimit}: must not be less than 1`));
  const template = spec.secretTemplate as Obj | undefined;
  if (template?.labels) out.push(...validateLabels(template.labels, [...at, 'secretTemplate', 'labels']));
  if (template?.annotations) {
    for (const key of Object.keys(template.annotations as Obj))
      if (key.startsWith('cert-manager.io/') && key !== 'cert-manager.io/allow-direct-injection')
        out.push(invalid([...at, 'secretTemplate', 'annotations'], `Invalid value: ${JSON.stringify(key)}: cert-manager.io/* annotations are not allowed`));
    out.push(...validateAnnotations(template.annotations, [...at, 'secretTemplate', 'annotations']));
  }
  const seen = new Set<string>();
  for (const format of list(spec.additionalOutputFormats) as Obj[]) {
    const type = String(format?.type ?? '');
    if (seen.has(type)) out.push(invalid([...at, 'additionalOutputFormats'], `Duplicate value: ${JSON.stringify(type)}`));
    seen.add(type);
  }
  const constraints = spec.nameConstraints as Obj | undefined;
  if (constraints) {
    if (spec.isCA !== true) out.push(invalid([...at, 'nameConstraints'], 'Invalid value: isCa should be true when nameConstraints is set'));
    if (!constraints.permitted && !constraints.excluded)
      out.push(invalid([...at, 'nameConstraints'], 'Invalid value: either permitted or excluded must be set'));
  }
  return out;
}

/**
 * Why cert-manager's CronParse (pkg/util, v1.21) refuses a renewal window's schedule, in its words, or undefined: the
 * window's zone put before it as a CRON_TZ= prefix, read by cert-manager's copy of robfig's parser (five fields or a
 * descriptor).
 */
function cronProblem(cron: string, timeZone: string): string | undefined {
  const parsed = parseCron(timeZone ? `CRON_TZ=${timeZone} ${cron}` : cron, STANDARD, 'refused');
  return parsed.ok ? undefined : `failed to parse cron spec '${cron}': ${parsed.error}`;
}

/** validateCertificateRenewal: a policy of RenewBefore or Disabled, and every window a duration, a zone Go knows and a schedule. */
function renewalProblems(renewal: Obj, at: PathSegment[]): Invalid[] {
  const out: Invalid[] = [];
  const windows = list(renewal.windows) as Obj[];
  if (renewal.policy === 'Disabled') {
    if (windows.length) out.push(invalid([...at, 'windows'], 'Forbidden: windows cannot be set when `renewal.policy` is set to Disabled'));
    return out;
  }
  if (renewal.policy !== 'RenewBefore')
    out.push(invalid([...at, 'policy'], `Unsupported value: ${JSON.stringify(renewal.policy ?? '')}: supported values: "Disabled", "RenewBefore"`));
  windows.forEach((w, i) => {
    const here = [...at, 'windows', i];
    if (w?.windowDuration === undefined)
      out.push(invalid([...here, 'windowDuration'], 'Required value: windowDuration must be specified and should be greater than 0'));
    const zone = typeof w?.timezone === 'string' ? w.timezone : '';
    if (zone && !loadLocation(zone).ok)
      out.push(invalid([...here, 'timezone'], `Invalid value: ${JSON.stringify(zone)}: invalid value for timezone. timezone must be IANA compliant`));
    const problem = cronProblem(typeof w?.cron === 'string' ? w.cron : '', zone);
    if (problem)
      out.push(
        invalid(
          [...here, 'cron'],
          `Invalid value: ${JSON.stringify(w?.cron ?? '')}: invalid cron syntax: ${problem}. cron needs to follow: cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow`,
        ),
      );
  });
  return out;
}

/** Every refusal cert-manager's webhook makes of a Certificate's spec, in its words. */
export function certificateProblems(spec: Obj | undefined): Invalid[] {
  const at: PathSegment[] = ['spec'];
  const s = spec ?? {};
  const secretName = typeof s.secretName === 'string' ? s.secretName : '';
  return [
    ...(secretName === '' ? [invalid([...at, 'secretName'], 'Required value: must be specified')] : validateName('Secret', secretName, [...at, 'secretName'])),
    ...issuerRefProblems(s.issuerRef ?? {}, [...at, 'issuerRef']),
    ...nameProblems(s, at),
    ...keyProblems(s, at),
    ...(s.duration !== undefined || s.renewBefore !== undefined ? durationProblems(s, at) : []),
    ...restProblems(s, at),
    ...(s.keystores ? keystoreProblems(s, at) : []),
    ...(s.renewal && typeof s.renewal === 'object' ? renewalProblems(s.renewal as Obj, [...at, 'renewal']) : []),
  ];
}
