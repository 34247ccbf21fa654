/**
 * cert-manager's validating webhook on an Issuer or ClusterIssuer (v1.21.1, internal/apis/certmanager/validation/
 * issuer.go), each refusal in its words; and the Go readings it leans on (net.SplitHostPort, AppendCertsFromPEM).
 */
import { describe, expect, it } from 'vitest';
import { issuerSpecProblems } from '../../admission/webhooks/cert-manager-issuer.ts';
import { validNameserver } from '../../admission/webhooks/cert-manager-dns01.ts';
import { TEST_CERTIFICATE_PEM } from '../../admission/upstream/test-certificate.ts';
import { splitHostPort } from '../../model/go/net.ts';
import { appendsCertificates } from '../../model/go/x509.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const cloudflare = { apiTokenSecretRef: { name: 'cloudflare-api-token', key: 'api-token' } };
const acme = (extra: object = {}, solver: object = { dns01: { cloudflare } }) => ({
  acme: { server: 'https://acme-v02.api.letsencrypt.org/directory', privateKeySecretRef: { name: 'key' }, solvers: [solver], ...extra },
});
const refused = (spec: object) => issuerSpecProblems(spec, ['spec']).errors.map((p) => `${p.path.join('.')}: ${p.message}`);

describe("cert-manager's webhook on an issuer", () => {
  it("admits the repository's ClusterIssuer, and refuses one with no type or two", () => {
    expect(refused(acme())).toEqual([]);
    expect(refused({})).toEqual(['spec: Required value: at least one issuer must be configured']);
    expect(refused({ ...acme(), selfSigned: {} })).toEqual(['spec.selfSigned: Forbidden: may not specify more than one issuer type']);
    // A type given as null is not set, as Go decodes it.
    expect(refused({ ...acme(), ca: null })).toEqual([]);
  });

  it('asks a DNS-01 provider for the Secret key it reads, one way to log in, and one provider', () => {
    expect(refused(acme({}, { dns01: { cloudflare: { apiTokenSecretRef: { name: 'cloudflare-api-token' } } } }))).toEqual([
      'spec.acme.solvers.0.dns01.cloudflare.apiTokenSecretRef.key: Required value: secret key is required',
    ]);
    expect(refused(acme({}, { dns01: { cloudflare: { ...cloudflare, apiKeySecretRef: { name: 'k', key: 'k' } } } }))).toEqual([
      'spec.acme.solvers.0.dns01.cloudflare: Forbidden: apiKeySecretRef and apiTokenSecretRef cannot both be specified',
      'spec.acme.solvers.0.dns01.cloudflare.email: Required value',
    ]);
    expect(refused(acme({}, { dns01: { cloudflare, route53: {} } }))).toEqual([
      'spec.acme.solvers.0.dns01.route53: Forbidden: may not specify more than one provider type',
    ]);
    expect(refused(acme({}, { dns01: { rfc2136: { nameserver: '1.2.3.4:53:1' } } }))[0]).toMatch(
      /nameserver: Invalid value: "1.2.3.4:53:1": nameserver must be set in the form host:port/,
    );
    expect(
      refused(
        acme(
          {},
          { dns01: { rfc2136: { nameserver: '10.0.0.1', tsigAlgorithm: 'hmacsha256', tsigKeyName: 'k', tsigSecretSecretRef: { name: 's', key: 'k' } } } },
        ),
      ),
    ).toEqual([]);
    expect(refused(acme({}, {}))).toEqual(['spec.acme.solvers.0: Required value: no solver type configured']);
  });

  it('holds an HTTP-01 solver to one route, its ingress class to a name, and its wait to no less than zero', () => {
    expect(refused(acme({}, { http01: { ingress: { ingressClassName: 'azure/application-gateway' } } }))[0]).toMatch(
      /ingressClassName: Invalid value: "azure\/application-gateway": must be a valid IngressClass name: a lowercase RFC 1123 subdomain .* \(e\.g\. 'example\.com', regex used/,
    );
    expect(refused(acme({}, { http01: { ingress: { serviceType: 'LoadBalancer' } } }))).toEqual([
      'spec.acme.solvers.0.http01.ingress.serviceType: Invalid value: "LoadBalancer": must be empty, "ClusterIP" or "NodePort"',
    ]);
    expect(refused(acme({}, { http01: { gatewayHTTPRoute: { parentRefs: [{ name: 'gw' }] } } }))).toEqual([
      'spec.acme.solvers.0.http01.gateway.parentRefs.0.kind: Required value: kind is required when name is specified',
    ]);
    expect(refused(acme({}, { http01: { ingress: {} }, waitInsteadOfSelfCheck: '-5s' }))).toEqual([
      'spec.acme.solvers.0.waitInsteadOfSelfCheck: Invalid value: "-5s": waitInsteadOfSelfCheck must not be negative',
    ]);
  });

  it('reads a CA bundle as Go does: at least one certificate, and never beside skipTLSVerify', () => {
    expect(refused(acme({ caBundle: b64(TEST_CERTIFICATE_PEM) }))).toEqual([]);
    expect(refused(acme({ caBundle: b64('not a bundle') }))).toEqual([
      'spec.acme.caBundle: Invalid value: "": cert bundle didn\'t contain any valid certificates',
    ]);
    expect(refused(acme({ caBundle: b64(TEST_CERTIFICATE_PEM), skipTLSVerify: true }))).toEqual([
      'spec.acme.caBundle: Invalid value: "": caBundle and skipTLSVerify are mutually exclusive and cannot both be set',
      'spec.acme.skipTLSVerify: Invalid value: true: caBundle and skipTLSVerify are mutually exclusive and cannot both be set',
    ]);
  });

  it("warns of a binding's deprecated key algorithm, and refuses one without its key ID", () => {
    const verdict = issuerSpecProblems(acme({ externalAccountBinding: { keySecretRef: { name: 'eab', key: 'k' }, keyAlgorithm: 'HS256' } }), ['spec']);
    expect(verdict.errors.map((p) => p.message)).toEqual(['Required value: the keyID field is required when using externalAccountBinding']);
    expect(verdict.warnings).toEqual(["ACME issuer spec field 'externalAccount.keyAlgorithm' is deprecated. The value of this field will be ignored."]);
  });

  it("asks Vault for a server, a path without '..', and a way to log in; Venafi for a zone and one platform; CA for a Secret", () => {
    expect(
      refused({
        vault: {
          server: 'https://vault',
          path: 'pki/../sys/seal',
          auth: { kubernetes: { role: 'r', mountPath: '/v1/auth/kubernetes', serviceAccountRef: { name: 'sa' } } },
        },
      }),
    ).toEqual(['spec.vault.path: Invalid value: "pki/../sys/seal": must not contain \'..\' path segments']);
    expect(refused({ vault: { server: 'https://vault', path: 'pki/sign/x', auth: {} } })).toEqual([
      'spec.vault.auth: Required value: please supply one of: appRole, kubernetes, tokenSecretRef, clientCertificate, aws',
    ]);
    expect(refused({ venafi: { zone: 'z', tpp: { url: 'u' }, cloud: {} } })).toEqual(['spec.venafi: Forbidden: please supply one of: tpp, cloud, ngts']);
    expect(refused({ ca: { secretName: '', issuingCertificateURLs: [''] } })).toEqual([
      'spec.ca.secretName: Required value',
      'spec.ca.issuingCertificateURLs.0: Invalid value: "": must be a valid URL',
    ]);
  });
});

describe("the Go readings the issuer's rules lean on", () => {
  it('splits host and port as net.SplitHostPort does, and takes a nameserver as util.ValidNameserver does', () => {
    expect(splitHostPort('ns.example.com:53')).toEqual({ host: 'ns.example.com', port: '53' });
    expect(splitHostPort('[2001:db8::1]:53')).toEqual({ host: '2001:db8::1', port: '53' });
    expect(splitHostPort('8.8.8.8')).toEqual({ error: 'missing port in address' });
    expect(splitHostPort('1:2:3')).toEqual({ error: 'too many colons in address' });
    expect(splitHostPort('[::1]x:53')).toEqual({ error: 'missing port in address' });
    expect(['8.8.8.8', '8.8.8.8:', '[2001:db8::1]', 'nameserver.com:53', ' 1.2.3.4 '].map(validNameserver)).toEqual([true, true, true, true, true]);
    expect([':53', '', '2001:db8::1:53x:', '[', 'a]:53'].map(validNameserver)).toEqual([false, false, false, false, false]);
  });

  it('finds a certificate in a PEM bundle as AppendCertsFromPEM does: a CERTIFICATE block, no headers, one that parses', () => {
    expect(appendsCertificates(TEST_CERTIFICATE_PEM)).toBe(true);
    expect(appendsCertificates(`junk before\n${TEST_CERTIFICATE_PEM}\njunk after`)).toBe(true);
    expect(appendsCertificates(TEST_CERTIFICATE_PEM.replace(/CERTIFICATE/g, 'PUBLIC KEY'))).toBe(false);
    expect(appendsCertificates(TEST_CERTIFICATE_PEM.replace('-----\n', '-----\nProc-Type: 4,ENCRYPTED\n\n'))).toBe(false);
    expect(appendsCertificates(TEST_CERTIFICATE_PEM.replace(/\n[A-Za-z0-9+/]{10}/, '\nAAAAAAAAAA'))).toBe(false);
    expect(appendsCertificates('')).toBe(false);
  });
});
