/**
 * What cert-manager's validating webhook refuses of an Issuer or a ClusterIssuer (cert-manager v1.21.1,
 * internal/apis/certmanager/validation/issuer.go, `ValidateIssuerSpec`, which both kinds run on their spec): one
 * issuer type; for ACME a server, an account key Secret, a CA bundle Go reads a certificate from, and solvers each
 * of one kind with the fields its provider needs; for CA a Secret; for Vault a server, a path, and one way to log in;
 * for Venafi a zone and one platform. The CRD's schema says the types; the webhook says the rest, in these words.
 * Each function takes the object (its v1 JSON) and the path upstream gives it, so cert-manager's own tests call the
 * same function as the webhook does (upstream/cert-manager-issuer-cases.ts).
 */
import { goDurationMs } from '../../model/core/time.ts';
import { dns1123SubdomainErrors } from '../cel/format.ts';
import type { Invalid } from '../validation/metadata.ts';
import { dns01Problems } from './cert-manager-dns01.ts';
import { byteLength, caBundleProblem, error, hasDotDot, isSet, obj, secretKeySelectorProblems, text, type Obj, type Path } from './issuer-fields.ts';

export { dns01Problems, secretKeySelectorProblems };

export interface IssuerVerdict {
  errors: Invalid[];
  warnings: string[];
}

const ISSUER_TYPES = ['acme', 'ca', 'selfSigned', 'vault', 'venafi'] as const;

/** ValidateIssuerConfig: exactly one issuer type, and that one's own rules; a second is refused, not judged. */
export function issuerSpecProblems(spec: unknown, at: Path): IssuerVerdict {
  const e = error('ValidateIssuerConfig');
  const s = obj(spec);
  const out: IssuerVerdict = { errors: [], warnings: [] };
  let configs = 0;
  for (const type of ISSUER_TYPES) {
    if (!isSet(s[type])) continue;
    if (configs++ > 0) {
      out.errors.push(e.forbidden([...at, type], 'may not specify more than one issuer type'));
      continue;
    }
    if (type === 'acme') {
      const acme = acmeIssuerProblems(s.acme, [...at, 'acme']);
      out.errors.push(...acme.errors);
      out.warnings.push(...acme.warnings);
    } else if (type === 'ca') out.errors.push(...caIssuerProblems(s.ca, [...at, 'ca']));
    else if (type === 'vault') out.errors.push(...vaultIssuerProblems(s.vault, [...at, 'vault']));
    else if (type === 'venafi') out.errors.push(...venafiIssuerProblems(s.venafi, [...at, 'venafi']));
  }
  if (configs === 0) out.errors.push(e.required(at, 'at least one issuer must be configured'));
  return out;
}

/** warnings.go's deprecatedACMEEABKeyAlgorithmField. */
const EAB_KEY_ALGORITHM_WARNING = "ACME issuer spec field 'externalAccount.keyAlgorithm' is deprecated. The value of this field will be ignored.";

export function acmeIssuerProblems(acme: unknown, at: Path): IssuerVerdict {
  const e = error('ValidateACMEIssuerConfig');
  const a = obj(acme);
  const errors: Invalid[] = [];
  const warnings: string[] = [];
  const hasBundle = byteLength(a.caBundle) > 0;
  if (hasBundle && a.skipTLSVerify === true) {
    const both = 'caBundle and skipTLSVerify are mutually exclusive and cannot both be set';
    errors.push(e.invalid([...at, 'caBundle'], '', both), e.invalid([...at, 'skipTLSVerify'], true, both));
  }
  const bundle = hasBundle ? caBundleProblem(a.caBundle) : undefined;
  if (bundle) errors.push(e.invalid([...at, 'caBundle'], '', bundle));
  if (text(obj(a.privateKeySecretRef).name) === '')
    errors.push(e.required([...at, 'privateKeySecretRef', 'name'], 'private key secret name is a required field'));
  if (text(a.server) === '') errors.push(e.required([...at, 'server'], 'acme server URL is a required field'));
  if (isSet(a.externalAccountBinding)) {
    const eab = obj(a.externalAccountBinding);
    const here = [...at, 'externalAccountBinding'];
    if (text(eab.keyID) === '') errors.push(e.required([...here, 'keyID'], 'the keyID field is required when using externalAccountBinding'));
    errors.push(...secretKeySelectorProblems(eab.keySecretRef, [...here, 'keySecretRef']));
    if (text(eab.keyAlgorithm) !== '') warnings.push(EAB_KEY_ALGORITHM_WARNING);
  }
  (Array.isArray(a.solvers) ? a.solvers : []).forEach((sol: unknown, i: number) => errors.push(...solverProblems(sol, [...at, 'solvers', i])));
  return { errors, warnings };
}

/** ValidateACMEIssuerChallengeSolverConfig: one of http01 and dns01, and a wait that is not negative. */
export function solverProblems(solver: unknown, at: Path): Invalid[] {
  const e = error('ValidateACMEIssuerChallengeSolverConfig');
  const s = obj(solver);
  const out: Invalid[] = [];
  if (isSet(s.http01)) out.push(...http01Problems(s.http01, [...at, 'http01']));
  if (isSet(s.dns01))
    out.push(
      ...(isSet(s.http01) ? [e.forbidden(at, 'may not specify more than one solver type in a single solver')] : dns01Problems(s.dns01, [...at, 'dns01'])),
    );
  if (!isSet(s.http01) && !isSet(s.dns01)) out.push(e.required(at, 'no solver type configured'));
  const wait = typeof s.waitInsteadOfSelfCheck === 'string' ? goDurationMs(s.waitInsteadOfSelfCheck) : undefined;
  if (wait !== undefined && wait < 0)
    out.push(e.invalid([...at, 'waitInsteadOfSelfCheck'], s.waitInsteadOfSelfCheck, 'waitInsteadOfSelfCheck must not be negative'));
  return out;
}

const SERVICE_TYPES = ['', 'ClusterIP', 'NodePort'];

/** ValidateACMEIssuerChallengeSolverHTTP01Config, with its ingress and Gateway API rules. */
export function http01Problems(http01: unknown, at: Path): Invalid[] {
  const e = error('ValidateACMEIssuerChallengeSolverHTTP01Config');
  const h = obj(http01);
  const out: Invalid[] = [];
  const serviceType = (v: Obj, here: Path) =>
    SERVICE_TYPES.includes(text(v.serviceType)) ? [] : [e.invalid([...here, 'serviceType'], text(v.serviceType), 'must be empty, "ClusterIP" or "NodePort"')];
  if (isSet(h.ingress)) {
    const ing = obj(h.ingress);
    const here = [...at, 'ingress'];
    if ([isSet(ing.class), isSet(ing.ingressClassName), text(ing.name) !== ''].filter(Boolean).length > 1)
      out.push(e.forbidden(here, "only one of 'ingressClassName', 'name' or 'class' should be specified"));
    const className = isSet(ing.ingressClassName) ? dns1123SubdomainErrors(text(ing.ingressClassName)) : [];
    if (className.length)
      out.push(e.invalid([...here, 'ingressClassName'], text(ing.ingressClassName), `must be a valid IngressClass name: ${className.join(', ')}`));
    out.push(...serviceType(ing, here));
  }
  if (isSet(h.gatewayHTTPRoute)) {
    // Upstream names this place `gateway`, not the field's `gatewayHTTPRoute`, and the refusal says so.
    const here = [...at, 'gateway'];
    const gw = obj(h.gatewayHTTPRoute);
    out.push(...serviceType(gw, here));
    const refs: unknown[] = Array.isArray(gw.parentRefs) ? gw.parentRefs : [];
    // Upstream stops at the first parentRef that has a kind without a name, or a name without a kind.
    const i = refs.findIndex((r) => isSet(obj(r).kind) !== (text(obj(r).name) !== ''));
    if (i >= 0)
      out.push(
        isSet(obj(refs[i]).kind)
          ? e.required([...here, 'parentRefs', i, 'name'], 'name is required when kind is specified')
          : e.required([...here, 'parentRefs', i, 'kind'], 'kind is required when name is specified'),
      );
  }
  const defined = [isSet(h.ingress), isSet(h.gatewayHTTPRoute)].filter(Boolean).length;
  if (defined === 0) out.push(e.required(at, 'no HTTP01 solver type configured'));
  if (defined > 1) out.push(e.required(at, 'only 1 HTTP01 solver type may be configured'));
  return out;
}

export function caIssuerProblems(ca: unknown, at: Path): Invalid[] {
  const e = error('ValidateCAIssuerConfig');
  const c = obj(ca);
  const urls = (field: string, upstreamField: string, detail: string) =>
    (Array.isArray(c[field]) ? (c[field] as unknown[]) : []).flatMap((u, i) => (text(u) === '' ? [e.invalid([...at, upstreamField, i], '', detail)] : []));
  return [
    ...(text(c.secretName) === '' ? [e.required([...at, 'secretName'])] : []),
    // Upstream names an OCSP server's place `ocspServer`, the field being `ocspServers`.
    ...urls('ocspServers', 'ocspServer', 'must be a valid URL, e.g., http://ocsp.int-x3.letsencrypt.org'),
    ...urls('issuingCertificateURLs', 'issuingCertificateURLs', 'must be a valid URL'),
  ];
}

export function vaultIssuerProblems(vault: unknown, at: Path): Invalid[] {
  const e = error('ValidateVaultIssuerConfig');
  const v = obj(vault);
  const out: Invalid[] = [];
  if (text(v.server) === '') out.push(e.required([...at, 'server']));
  if (text(v.path) === '') out.push(e.required([...at, 'path']));
  else if (hasDotDot(v.path)) out.push(e.invalid([...at, 'path'], v.path, "must not contain '..' path segments"));
  const hasBundle = byteLength(v.caBundle) > 0;
  const bundle = hasBundle ? caBundleProblem(v.caBundle) : undefined;
  if (bundle) out.push(e.invalid([...at, 'caBundle'], '<snip>', bundle));
  if (hasBundle && isSet(v.caBundleSecretRef))
    out.push(
      e.invalid([...at, 'caBundle'], '<snip>', 'specified caBundle and caBundleSecretRef cannot be used together'),
      e.invalid([...at, 'caBundleSecretRef'], text(obj(v.caBundleSecretRef).name), 'specified caBundleSecretRef and caBundle cannot be used together'),
    );
  if (isSet(v.clientCertSecretRef) && !isSet(v.clientKeySecretRef))
    out.push(e.invalid([...at, 'clientKeySecretRef'], '<snip>', 'clientKeySecretRef must be provided when defining the clientCertSecretRef'));
  else if (!isSet(v.clientCertSecretRef) && isSet(v.clientKeySecretRef))
    out.push(e.invalid([...at, 'clientCertSecretRef'], '<snip>', 'clientCertSecretRef must be provided when defining the clientKeySecretRef'));
  return [...out, ...vaultAuthProblems(v.auth, [...at, 'auth'])];
}

/**
 * ValidateVaultIssuerAuth: at least one way to log in, each with what it needs. Two at once stay allowed: upstream
 * documents which one wins rather than break the Issuers that set both.
 */
export function vaultAuthProblems(auth: unknown, at: Path): Invalid[] {
  const e = error('ValidateVaultIssuerAuth');
  const a = obj(auth);
  const out: Invalid[] = [];
  // Upstream names a login's mountPath `path`, but for AWS's.
  const dotDot = (method: string, field: string, v: unknown) =>
    hasDotDot(v) ? [e.invalid([...at, method, field], text(v), "must not contain '..' path segments")] : [];
  if (isSet(a.appRole)) {
    const r = obj(a.appRole);
    if (text(r.roleId) === '') out.push(e.required([...at, 'appRole', 'roleId']));
    if (text(obj(r.secretRef).name) === '') out.push(e.required([...at, 'appRole', 'secretRef', 'name']));
    out.push(...dotDot('appRole', 'path', r.path));
  }
  if (isSet(a.clientCertificate)) out.push(...dotDot('clientCertificate', 'path', obj(a.clientCertificate).mountPath));
  if (isSet(a.kubernetes)) {
    const k = obj(a.kubernetes);
    if (text(k.role) === '') out.push(e.required([...at, 'kubernetes', 'role']));
    out.push(...dotDot('kubernetes', 'path', k.mountPath));
    const ways = (text(obj(k.secretRef).name) !== '' ? 1 : 0) + (isSet(k.serviceAccountRef) ? 1 : 0);
    if (isSet(k.serviceAccountRef) && text(obj(k.serviceAccountRef).name) === '') out.push(e.required([...at, 'kubernetes', 'serviceAccountRef', 'name']));
    if (ways === 0) out.push(e.required([...at, 'kubernetes'], 'please supply one of: secretRef, serviceAccountRef'));
    if (ways > 1) out.push(e.forbidden([...at, 'kubernetes'], 'please supply one of: secretRef, serviceAccountRef'));
  }
  if (isSet(a.aws)) {
    const w = obj(a.aws);
    if (text(w.role) === '') out.push(e.required([...at, 'aws', 'role']));
    out.push(...dotDot('aws', 'mountPath', w.mountPath));
    if (isSet(w.serviceAccountRef)) {
      if (text(obj(w.serviceAccountRef).name) === '') out.push(e.required([...at, 'aws', 'serviceAccountRef', 'name']));
      if (text(w.iamRoleArn) === '') out.push(e.required([...at, 'aws', 'iamRoleArn'], 'iamRoleArn is required when using serviceAccountRef for IRSA'));
    }
  }
  if (!['tokenSecretRef', 'appRole', 'clientCertificate', 'kubernetes', 'aws'].some((m) => isSet(a[m])))
    out.push(e.required(at, 'please supply one of: appRole, kubernetes, tokenSecretRef, clientCertificate, aws'));
  return out;
}

export function venafiIssuerProblems(venafi: unknown, at: Path): Invalid[] {
  const e = error('ValidateVenafiIssuerConfig');
  const v = obj(venafi);
  const out: Invalid[] = text(v.zone) === '' ? [e.required([...at, 'zone'])] : [];
  if (isSet(v.tpp)) out.push(...venafiTPPProblems(v.tpp, [...at, 'tpp']));
  if (isSet(v.ngts)) out.push(...venafiNGTSProblems(v.ngts, [...at, 'ngts']));
  const platforms = ['tpp', 'cloud', 'ngts'].filter((p) => isSet(v[p])).length;
  if (platforms === 0) out.push(e.required(at, 'please supply one of: tpp, cloud, ngts'));
  if (platforms > 1) out.push(e.forbidden(at, 'please supply one of: tpp, cloud, ngts'));
  return out;
}

export function venafiTPPProblems(tpp: unknown, at: Path): Invalid[] {
  const e = error('ValidateVenafiTPP');
  const t = obj(tpp);
  return [
    ...(text(t.url) === '' ? [e.required([...at, 'url'])] : []),
    ...(byteLength(t.caBundle) > 0 && isSet(t.caBundleSecretRef)
      ? [e.forbidden(at, 'may not specify more than one of caBundle/caBundleSecretRef as TPP CA Bundle')]
      : []),
  ];
}

export function venafiNGTSProblems(ngts: unknown, at: Path): Invalid[] {
  const e = error('ValidateVenafiNGTS');
  const n = obj(ngts);
  return [
    ...(text(n.tsgID) === '' ? [e.required([...at, 'tsgID'])] : []),
    ...(text(obj(n.credentialsRef).name) === '' ? [e.required([...at, 'credentialsRef', 'name'])] : []),
  ];
}
