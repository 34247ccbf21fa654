/**
 * The reader of cert-manager's Certificate validation tests (upstream/cert-manager-cases.ts), on a table written in
 * their form: rows read, converted to the v1 object by the types' JSON tags, declined or not read with why.
 */
import { describe, expect, it } from 'vitest';
import { certManagerAgreement, certManagerCases } from '../../admission/upstream/cert-manager-cases.ts';

const TEST = `
func TestValidateCertificate(t *testing.T) {
	fldPath := field.NewPath("spec")
	scenarios := map[string]struct {
		cfg  *internalcmapi.Certificate
		errs []*field.Error
		nameConstraintsFeatureEnabled bool
	}{
		"valid with a dns name": {
			cfg: &internalcmapi.Certificate{Spec: internalcmapi.CertificateSpec{DNSNames: []string{"a"}, SecretName: "abc", IssuerRef: validIssuerRef}},
		},
		"a short key": {
			cfg: &internalcmapi.Certificate{Spec: internalcmapi.CertificateSpec{CommonName: "cn", SecretName: "abc", IssuerRef: validIssuerRef,
				PrivateKey: &internalcmapi.CertificatePrivateKey{Algorithm: internalcmapi.RSAKeyAlgorithm, Size: 1024}}},
			errs: []*field.Error{field.Invalid(fldPath.Child("privateKey", "size"), 1024, "must be between 2048 and 8192 for rsa keyAlgorithm")},
		},
		"name constraints without the gate": {
			cfg: &internalcmapi.Certificate{Spec: internalcmapi.CertificateSpec{CommonName: "cn", SecretName: "abc", IssuerRef: validIssuerRef, IsCA: true, NameConstraints: &internalcmapi.NameConstraints{}}},
		},
		"an unknown helper": {
			cfg: mystery(),
		},
	}
}

func TestValidateDuration(t *testing.T) {
	usefulDurations := map[string]*metav1.Duration{
		"half hour": {Duration: time.Minute * 30},
	}
	fldPath := field.NewPath("spec")
	scenarios := map[string]struct {
		cfg  *internalcmapi.Certificate
		errs []*field.Error
	}{
		"too short": {
			cfg:  &internalcmapi.Certificate{Spec: internalcmapi.CertificateSpec{Duration: usefulDurations["half hour"], CommonName: "cn", SecretName: "abc", IssuerRef: validIssuerRef}},
			errs: []*field.Error{field.Invalid(fldPath.Child("duration"), usefulDurations["half hour"].Duration, "certificate duration must be greater than 1h0m0s")},
		},
	}
}
`;
const V1 = `
type CertificateSpec struct {
	CommonName string \`json:"commonName,omitempty"\`
	DNSNames []string \`json:"dnsNames,omitempty"\`
	SecretName string \`json:"secretName"\`
	IssuerRef cmmeta.IssuerReference \`json:"issuerRef"\`
	PrivateKey *CertificatePrivateKey \`json:"privateKey,omitempty"\`
	Duration *metav1.Duration \`json:"duration,omitempty"\`
	IsCA bool \`json:"isCA,omitempty"\`
	NameConstraints *NameConstraints \`json:"nameConstraints,omitempty"\`
}
type CertificatePrivateKey struct {
	Algorithm PrivateKeyAlgorithm \`json:"algorithm,omitempty"\`
	Size int \`json:"size,omitempty"\`
}
type IssuerReference struct {
	Name string \`json:"name"\`
	Kind string \`json:"kind,omitempty"\`
}
`;
const INTERNAL = `
const (
	RSAKeyAlgorithm PrivateKeyAlgorithm = "RSA"
)
`;

describe("the reader of cert-manager's Certificate validation tests", () => {
  const table = certManagerCases(TEST, [V1], [INTERNAL]);

  it('reads each row as the v1 object it converts to, with its expected errors by type and field', () => {
    expect(table.cases.map((c) => [c.test, c.name, c.errors])).toEqual([
      ['TestValidateCertificate', 'valid with a dns name', []],
      ['TestValidateCertificate', 'a short key', ['Invalid spec.privateKey.size']],
      ['TestValidateDuration', 'too short', ['Invalid spec.duration']],
    ]);
    expect(table.cases[1]!.spec).toEqual({
      commonName: 'cn',
      secretName: 'abc',
      issuerRef: { name: 'name', kind: 'ClusterIssuer' },
      privateKey: { algorithm: 'RSA', size: 1024 },
    });
    expect(table.cases[2]!.spec.duration).toBe('1800s');
  });

  it('declines a row that turns a feature gate off, and counts one it cannot read apart, with why', () => {
    expect(table.declined.map((d) => d.name)).toEqual(['TestValidateCertificate/name constraints without the gate']);
    expect(table.unread).toEqual([{ name: 'TestValidateCertificate/an unknown helper', why: 'unknown function mystery' }]);
  });

  it('agrees where the gate refuses exactly what the row expects, and counts what it cannot read as not agreeing', () => {
    const a = certManagerAgreement(table);
    expect([a.agree, a.total]).toEqual([3, 4]);
    expect(a.disagreements.map((d) => d.file)).toEqual(['TestValidateCertificate/an unknown helper']);
  });
});
