/**
 * The reader of cert-manager's Issuer validation tests (upstream/cert-manager-issuer-cases.ts), on tables written in
 * their form: each object converted to v1 JSON by its fields' Go types (an embedded struct inlined, `[]byte` as
 * base64, a made certificate stood in for), the test's place kept, a row it cannot read counted apart with why.
 */
import { describe, expect, it } from 'vitest';
import { certManagerIssuerAgreement, certManagerIssuerCases } from '../../admission/upstream/cert-manager-issuer-cases.ts';

const TEST = `
var (
	validSecretKeyRef = cmmeta.SecretKeySelector{
		LocalObjectReference: cmmeta.LocalObjectReference{
			Name: "valid",
		},
		Key: "validkey",
	}
)

func TestValidateACMEIssuerConfig(t *testing.T) {
	fldPath := (*field.Path)(nil)

	caBundle := unitcrypto.MustCreateCryptoBundle(t,
		&pubcmapi.Certificate{Spec: pubcmapi.CertificateSpec{CommonName: "test"}},
		clock.RealClock{},
	).CertBytes

	scenarios := map[string]struct {
		spec     *cmacme.ACMEIssuer
		errs     []*field.Error
		warnings []string
	}{
		"a bundle beside skipTLSVerify": {
			spec: &cmacme.ACMEIssuer{
				Server:        "valid-server",
				PrivateKey:    validSecretKeyRef,
				CABundle:      caBundle,
				SkipTLSVerify: true,
			},
			errs: []*field.Error{
				field.Invalid(fldPath.Child("caBundle"), "", "caBundle and skipTLSVerify are mutually exclusive and cannot both be set"),
				field.Invalid(fldPath.Child("skipTLSVerify"), true, "caBundle and skipTLSVerify are mutually exclusive and cannot both be set"),
			},
		},
		"a bundle of nothing": {
			spec: &cmacme.ACMEIssuer{
				Server:     "valid-server",
				PrivateKey: validSecretKeyRef,
				CABundle:   []byte("invalid"),
			},
			errs: []*field.Error{
				field.Invalid(fldPath.Child("caBundle"), "", "cert bundle didn't contain any valid certificates"),
			},
		},
		"a deprecated algorithm": {
			spec: &cmacme.ACMEIssuer{
				Server:     "valid-server",
				PrivateKey: validSecretKeyRef,
				ExternalAccountBinding: &cmacme.ACMEExternalAccountBinding{
					KeyID:        "id",
					Key:          validSecretKeyRef,
					KeyAlgorithm: cmacme.HS384,
				},
			},
			warnings: []string{deprecatedACMEEABKeyAlgorithmField},
		},
		"a helper it does not know": {
			spec: mystery(),
		},
	}
}

func TestValidateACMEIssuerDNS01Config(t *testing.T) {
	fldPath := field.NewPath("test")
	scenarios := map[string]struct {
		cfg  *cmacme.ACMEChallengeSolverDNS01
		errs []*field.Error
	}{
		"missing cloudflare email": {
			cfg: &cmacme.ACMEChallengeSolverDNS01{
				Cloudflare: &cmacme.ACMEIssuerDNS01ProviderCloudflare{
					APIKey: &validSecretKeyRef,
				},
			},
			errs: []*field.Error{
				field.Required(fldPath.Child("cloudflare", "email"), ""),
			},
		},
	}
}
`;
const V1 = `
type ACMEIssuer struct {
	Server string \`json:"server"\`
	CABundle []byte \`json:"caBundle,omitempty"\`
	SkipTLSVerify bool \`json:"skipTLSVerify,omitempty"\`
	ExternalAccountBinding *ACMEExternalAccountBinding \`json:"externalAccountBinding,omitempty"\`
	PrivateKey cmmeta.SecretKeySelector \`json:"privateKeySecretRef"\`
}
type ACMEExternalAccountBinding struct {
	KeyID string \`json:"keyID"\`
	Key cmmeta.SecretKeySelector \`json:"keySecretRef"\`
	KeyAlgorithm HMACKeyAlgorithm \`json:"keyAlgorithm,omitempty"\`
}
const (
	HS384 HMACKeyAlgorithm = "HS384"
)
type ACMEChallengeSolverDNS01 struct {
	Cloudflare *ACMEIssuerDNS01ProviderCloudflare \`json:"cloudflare,omitempty"\`
}
type ACMEIssuerDNS01ProviderCloudflare struct {
	Email string \`json:"email,omitempty"\`
	APIKey *cmmeta.SecretKeySelector \`json:"apiKeySecretRef,omitempty"\`
}
type SecretKeySelector struct {
	LocalObjectReference \`json:",inline"\`
	Key string \`json:"key,omitempty"\`
}
type LocalObjectReference struct {
	Name string \`json:"name"\`
}
`;
const VALIDATION = `
const (
	deprecatedACMEEABKeyAlgorithmField = "ACME issuer spec field 'externalAccount.keyAlgorithm' is deprecated. The value of this field will be ignored."
)
`;

describe("the reader of cert-manager's Issuer validation tests", () => {
  const table = certManagerIssuerCases(TEST, [V1], [VALIDATION]);

  it('reads each object as the v1 JSON it converts to, an embedded struct inlined and bytes as base64', () => {
    const [skip, nothing, deprecated, email] = table.cases;
    expect(skip!.value).toMatchObject({ server: 'valid-server', privateKeySecretRef: { name: 'valid', key: 'validkey' }, skipTLSVerify: true });
    expect(Buffer.from((skip!.value as { caBundle: string }).caBundle, 'base64').toString()).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
    expect((nothing!.value as { caBundle: string }).caBundle).toBe(Buffer.from('invalid').toString('base64'));
    expect(deprecated!.value).toMatchObject({
      externalAccountBinding: { keyID: 'id', keySecretRef: { name: 'valid', key: 'validkey' }, keyAlgorithm: 'HS384' },
    });
    expect(deprecated!.warnings).toEqual(["ACME issuer spec field 'externalAccount.keyAlgorithm' is deprecated. The value of this field will be ignored."]);
    expect([email!.at, email!.errors]).toEqual(['test', ['Required test.cloudflare.email: ']]);
    expect(table.unread).toEqual([{ name: 'TestValidateACMEIssuerConfig/a helper it does not know', why: 'unknown function mystery' }]);
  });

  it('agrees where the gate gives exactly the errors and warnings each row expects, and counts what it cannot read as not agreeing', () => {
    const a = certManagerIssuerAgreement(table);
    expect([a.agree, a.total]).toEqual([4, 5]);
    expect(a.disagreements.map((d) => d.file)).toEqual(['TestValidateACMEIssuerConfig/a helper it does not know']);
  });

  it('disagrees where an expected error is missing or in another place', () => {
    const moved = { ...table, cases: table.cases.slice(3).map((c) => ({ ...c, errors: ['Required test.cloudflare.apiKeySecretRef: '] })), unread: [] };
    const a = certManagerIssuerAgreement(moved);
    expect([a.agree, a.total]).toEqual([0, 1]);
    expect(a.disagreements[0]!.why).toBe('the gate refuses [Required test.cloudflare.email: ], cert-manager [Required test.cloudflare.apiKeySecretRef: ]');
  });
});
