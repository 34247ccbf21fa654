/**
 * cert-manager's validating webhook on a Certificate (v1.21.1, internal/apis/certmanager/validation/certificate.go),
 * each refusal in its words.
 */
import { describe, expect, it } from 'vitest';
import { certificateProblems } from '../../admission/webhooks/cert-manager.ts';

const valid = { secretName: 'tls', issuerRef: { kind: 'ClusterIssuer', name: 'letsencrypt' }, dnsNames: ['a.example.net'] };
const problems = (spec: object) => certificateProblems({ ...valid, ...spec }).map((p) => `${p.path.join('.')}: ${p.message}`);

describe("cert-manager's webhook on a Certificate", () => {
  it("admits the repository's shape of certificate, and names what a spec without names or a secret lacks", () => {
    expect(problems({})).toEqual([]);
    expect(certificateProblems({ issuerRef: { name: 'x' } }).map((p) => `${p.path.join('.')}: ${p.message}`)).toEqual([
      'spec.secretName: Required value: must be specified',
      'spec: Invalid value: "": at least one of commonName (from the commonName field or from a literalSubject), dnsNames, emailSANs, ipAddresses, otherNames, or uriSANs must be set',
    ]);
    expect(problems({ issuerRef: { kind: 'AWSPCAClusterIssuer', name: 'pca' } })).toEqual([
      'spec.issuerRef.kind: Invalid value: "AWSPCAClusterIssuer": must be one of Issuer or ClusterIssuer (did you forget to set spec.issuerRef.kind.group?)',
    ]);
    expect(problems({ issuerRef: { kind: 'AWSPCAClusterIssuer', group: 'awspca.cert-manager.io', name: 'pca' } })).toEqual([]);
  });

  it('holds the duration to an hour, and renewBefore to five minutes and below the duration (90 days when none is given)', () => {
    expect(problems({ duration: '30m' })).toEqual(['spec.duration: Invalid value: 30m0s: certificate duration must be greater than 1h0m0s']);
    expect(problems({ renewBefore: '3m' })).toEqual(['spec.renewBefore: Invalid value: 3m0s: certificate renewBefore must be greater than 5m0s']);
    expect(problems({ duration: '2h', renewBefore: '2h' })).toEqual([
      'spec.renewBefore: Invalid value: 2h0m0s: certificate duration 2h0m0s must be greater than renewBefore 2h0m0s',
    ]);
    expect(problems({ renewBefore: '2200h' })).toEqual([
      'spec.renewBefore: Invalid value: 2200h0m0s: certificate duration 2160h0m0s must be greater than renewBefore 2200h0m0s',
    ]);
    expect(problems({ duration: '1d' })).toEqual(['spec.duration: time: invalid duration "1d"']);
    expect(problems({ duration: '2h', renewBeforePercentage: 99 })).toEqual([
      'spec.renewBeforePercentage: Invalid value: 99: certificate renewBeforePercentage must result in a renewBefore greater than 5m0s',
    ]);
    expect(problems({ duration: '2h', renewBefore: '10m', renewBeforePercentage: 50 })).toHaveLength(2);
    // A percentage alone is not judged by the webhook's duration rules (ValidateDuration runs only with a duration or renewBefore).
    expect(problems({ renewBeforePercentage: 100 })).toEqual([]);
  });

  it('holds keys, signatures, names, usages and the rest to what cert-manager issues', () => {
    expect(problems({ privateKey: { algorithm: 'RSA', size: 1024 } })).toEqual([
      'spec.privateKey.size: Invalid value: 1024: must be between 2048 and 8192 for rsa keyAlgorithm',
    ]);
    expect(problems({ privateKey: { algorithm: 'ECDSA', size: 512 } })).toEqual([
      'spec.privateKey.size: Unsupported value: 512: supported values: "256", "384", "521"',
    ]);
    expect(problems({ privateKey: { algorithm: 'ECDSA' }, signatureAlgorithm: 'SHA256WithRSA' })).toEqual([
      'spec.signatureAlgorithm: Invalid value: "SHA256WithRSA": for key algorithm ECDSA the allowed signature algorithms are [ECDSAWithSHA256 ECDSAWithSHA384 ECDSAWithSHA512]',
    ]);
    expect(problems({ commonName: 'x'.repeat(65) })).toEqual(['spec.commonName: Too long: may not be more than 64 bytes']);
    expect(problems({ ipAddresses: ['10.0.0.1', '010.0.0.1', 'fe80::1%eth0'] }).map((p) => p.split(': ')[0])).toEqual([
      'spec.ipAddresses.1',
      'spec.ipAddresses.2',
    ]);
    expect(problems({ emailAddresses: ['ops@example.net', 'Ops <ops@example.net>', 'not an address'] })).toEqual([
      'spec.emailAddresses.1: Invalid value: "Ops <ops@example.net>": invalid email address: make sure the supplied value only contains the email address itself',
      'spec.emailAddresses.2: Invalid value: "not an address": invalid email address',
    ]);
    expect(problems({ usages: ['server auth', 'serverauth'] })).toEqual(['spec.usages.1: Invalid value: "serverauth": unknown keyusage']);
    expect(problems({ revisionHistoryLimit: 0 })).toEqual(['spec.revisionHistoryLimit: Invalid value: 0: must not be less than 1']);
    expect(problems({ secretTemplate: { annotations: { 'cert-manager.io/issuer-name': 'x' } } })).toEqual([
      'spec.secretTemplate.annotations: Invalid value: "cert-manager.io/issuer-name": cert-manager.io/* annotations are not allowed',
    ]);
    expect(problems({ additionalOutputFormats: [{ type: 'DER' }, { type: 'DER' }] })).toEqual(['spec.additionalOutputFormats: Duplicate value: "DER"']);
    expect(problems({ keystores: { pkcs12: { create: true } } })).toEqual([
      'spec.keystores.pkcs12: Forbidden: must set exactly one of passwordSecretRef and password must for PKCS#12 keystores',
    ]);
    expect(problems({ renewal: { policy: 'RenewBefore', windows: [{ cron: '0 2 * * 6', timezone: 'Europe/Berlin', windowDuration: '4h' }] } })).toEqual([]);
    expect(problems({ renewal: { policy: 'Disabled', windows: [{ cron: '@daily', windowDuration: '1h' }] } })).toEqual([
      'spec.renewal.windows: Forbidden: windows cannot be set when `renewal.policy` is set to Disabled',
    ]);
    expect(problems({ renewal: { policy: 'RenewBefore', windows: [{ cron: '0 2 * *', timezone: 'Mars/Olympus' }] } }).map((p) => p.split(': ')[0])).toEqual([
      'spec.renewal.windows.0.windowDuration',
      'spec.renewal.windows.0.timezone',
      'spec.renewal.windows.0.cron',
    ]);
    // CronParse's words, through cert-manager's copy of robfig's parser: the zone as a prefix, a bare prefix refused.
    expect(problems({ renewal: { policy: 'RenewBefore', windows: [{ cron: '0 25 * * *', timezone: 'UTC', windowDuration: '1h' }] } })).toEqual([
      `spec.renewal.windows.0.cron: Invalid value: "0 25 * * *": invalid cron syntax: failed to parse cron spec '0 25 * * *': end of range (25) above maximum (23): 25. cron needs to follow: cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow`,
    ]);
    expect(problems({ renewal: { policy: 'RenewBefore', windows: [{ cron: 'CRON_TZ=UTC', windowDuration: '1h' }] } })).toEqual([
      `spec.renewal.windows.0.cron: Invalid value: "CRON_TZ=UTC": invalid cron syntax: failed to parse cron spec 'CRON_TZ=UTC': expected timezone prefix to be followed by a cron spec: CRON_TZ=UTC. cron needs to follow: cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow`,
    ]);
    expect(problems({ nameConstraints: { permitted: { dnsDomains: ['example.net'] } } })).toEqual([
      'spec.nameConstraints: Invalid value: isCa should be true when nameConstraints is set',
    ]);
  });
});
