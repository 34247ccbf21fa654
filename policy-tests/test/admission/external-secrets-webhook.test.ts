/**
 * External Secrets' validating webhook (v2.9.0, apis/externalsecrets/v1), each refusal in its words; and the reader
 * of its own tests (upstream/external-secrets-cases.ts) on a table written in their form.
 */
import { describe, expect, it } from 'vitest';
import { externalSecretRefusals, refreshIntervalProblem, storeRefusals } from '../../admission/webhooks/external-secrets.ts';
import { externalSecretsAgreement, externalSecretsCases } from '../../admission/upstream/external-secrets-cases.ts';
import { externalSecretsTemplateAgreement, externalSecretsTemplateCases } from '../../admission/upstream/external-secrets-template-cases.ts';

const data = [{ secretKey: 'token', remoteRef: { key: 'item', property: 'token' } }];
const refused = (spec: object) => externalSecretRefusals(spec).map((r) => `${r.path.join('.')}: ${r.message}`);
const store = { onepasswordSDK: { vault: 'homelab', auth: { serviceAccountSecretRef: { name: 'op', key: 'token', namespace: 'external-secrets' } } } };

describe("External Secrets' webhook on an ExternalSecret", () => {
  it("admits the repository's shape, and refuses one with nothing to read", () => {
    expect(refused({ target: { name: 's', creationPolicy: 'Owner' }, data })).toEqual([]);
    expect(refused({ target: { name: 's' } })).toEqual(['spec: either data or dataFrom should be specified']);
  });

  it("refuses a secretKey twice while the Secret is retained, the CRD's default", () => {
    expect(refused({ data: [...data, ...data] })).toEqual(['spec.data.1.secretKey: duplicate secretKey found: token']);
    expect(refused({ target: { deletionPolicy: 'Delete' }, data: [...data, ...data] })).toEqual([]);
  });

  it('refuses a policy pair that cannot hold, a dataFrom of two kinds or none, and a privileged template', () => {
    expect(refused({ target: { creationPolicy: 'Merge', deletionPolicy: 'Delete' }, data })).toEqual([
      "spec.target.deletionPolicy: deletionPolicy=Delete must not be used when the controller doesn't own the secret. Please set creationPolicy=Owner",
    ]);
    expect(refused({ dataFrom: [{ find: {}, extract: { key: 'k' } }, {}] })).toEqual([
      'spec.dataFrom.0: extract, find, or generatorRef cannot be set at the same time',
      'spec.dataFrom.1: either extract, find, or sourceRef must be set to dataFrom',
    ]);
    expect(refused({ data, target: { template: { type: 'bootstrap.kubernetes.io/token' } } })).toEqual([
      'spec.target.template.type: template.type="bootstrap.kubernetes.io/token" is not allowed',
    ]);
    expect(refused({ data, target: { template: { templateFrom: [{ target: 'type' }, {}] } } })).toEqual([
      'spec.target.template.templateFrom.0.target: templateFrom target="type" is not allowed when targeting a Secret, must be one of "Data", "Annotations" or "Labels"',
    ]);
    expect(refused({ data, target: { manifest: { apiVersion: 'v1', kind: 'ConfigMap' }, template: { templateFrom: [{ target: 'data.x' }] } } })).toEqual([]);
  });
});

describe("External Secrets' webhook on a store", () => {
  const verdict = (spec: object, kind = 'ClusterSecretStore') => storeRefusals({ kind, name: 'homelab', namespace: 'ns', spec });
  it("admits the repository's 1Password store, and refuses one without the token's namespace at cluster scope", () => {
    expect(verdict({ provider: store })).toEqual({ refusals: [], warnings: [] });
    const noNamespace = { onepasswordSDK: { ...store.onepasswordSDK, auth: { serviceAccountSecretRef: { name: 'op', key: 'token' } } } };
    expect(verdict({ provider: noNamespace }).refusals.map((r) => r.message)).toEqual([
      'received invalid 1PasswordSdk SecretStore resource: cluster scope requires namespace',
    ]);
    expect(verdict({ provider: noNamespace }, 'SecretStore').refusals).toEqual([]);
  });

  it('stops at the first step that fails: a namespace regex, the refresh interval, one provider', () => {
    expect(verdict({ conditions: [{ namespaceRegexes: ['('] }], refreshInterval: -1, provider: store }).refusals.map((r) => r.message)).toEqual([
      'failed to compile 0th namespace regex in 0th condition: error parsing regexp: missing closing ): `(`',
    ]);
    expect(verdict({ refreshInterval: '10', provider: store }).refusals.map((r) => r.message)).toEqual([
      'invalid refreshInterval "10": time: missing unit in duration "10"',
    ]);
    expect(verdict({ provider: { ...store, fake: {} } }).refusals.map((r) => r.message)).toEqual([
      'store error for homelab: secret stores must only have exactly one backend specified, found 2',
    ]);
  });

  it("says another provider's own rules are not judged, and warns of the unmaintained fake one", () => {
    expect(verdict({ provider: { vault: { server: 'https://vault' } } })).toEqual({ refusals: [], warnings: [], unported: 'vault' });
    expect(verdict({ provider: { fake: { data: [] } } }).warnings).toEqual(["store homelab isn't currently maintained. Please plan and prepare accordingly."]);
    expect([refreshIntervalProblem(300), refreshIntervalProblem('1h'), refreshIntervalProblem('-5m'), refreshIntervalProblem('.')]).toEqual([
      undefined,
      undefined,
      'invalid refreshInterval "-5m": must not be negative',
      'invalid refreshInterval ".": time: invalid duration "."',
    ]);
  });
});

describe("the reader of External Secrets' validation tests", () => {
  const validatorTest = `
const (
	errExtractFindGenerator = "extract, find, or generatorRef cannot be set at the same time"
)

func TestValidateExternalSecret(t *testing.T) {
	tests := []struct {
		name        string
		obj         *ExternalSecret
		expectedErr string
	}{
		{
			name:        "nil",
			obj:         nil,
			expectedErr: "external secret cannot be nil during validation",
		},
		{
			name: "find with extract",
			obj: &ExternalSecret{
				Spec: ExternalSecretSpec{
					DataFrom: []ExternalSecretDataFromRemoteRef{{Find: &ExternalSecretFind{}, Extract: &ExternalSecretDataRemoteRef{}}},
				},
			},
			expectedErr: errExtractFindGenerator,
		},
		{
			name: "a helper it does not know",
			obj: mystery(),
		},
	}
}
`;
  const typesTest = `
func TestSecretStoreSpecGetRefreshInterval(t *testing.T) {
	fromNegInt := intstr.FromInt32(-5)
	fromDuration := intstr.FromString("1h")
	tests := []struct {
		name    string
	}{
		{name: "duration string", in: &fromDuration, want: time.Hour},
		{name: "negative integer errors", in: &fromNegInt, wantErr: true},
	}
}
`;
  const v1 = `
type ExternalSecret struct {
	metav1.ObjectMeta \`json:"metadata,omitempty"\`
	Spec ExternalSecretSpec \`json:"spec,omitempty"\`
}
type ExternalSecretSpec struct {
	DataFrom []ExternalSecretDataFromRemoteRef \`json:"dataFrom,omitempty"\`
}
type ExternalSecretDataFromRemoteRef struct {
	Extract *ExternalSecretDataRemoteRef \`json:"extract,omitempty"\`
	Find *ExternalSecretFind \`json:"find,omitempty"\`
}
type ExternalSecretDataRemoteRef struct {
	Key string \`json:"key"\`
}
type ExternalSecretFind struct {
	Path *string \`json:"path,omitempty"\`
}
`;
  it('reads each row, declines the nil object, counts one it cannot read apart, and agrees where the gate does', () => {
    const table = externalSecretsCases({ validatorTest, typesTest, v1: [v1] });
    expect(table.cases.map((c) => `${c.test}/${c.name}: ${c.want}`)).toEqual([
      'TestValidateExternalSecret/find with extract: extract, find, or generatorRef cannot be set at the same time',
      'TestSecretStoreSpecGetRefreshInterval/duration string: false',
      'TestSecretStoreSpecGetRefreshInterval/negative integer errors: true',
    ]);
    expect(table.declined.map((d) => d.name)).toEqual(['TestValidateExternalSecret/nil']);
    const a = externalSecretsAgreement(table);
    expect([a.agree, a.total]).toEqual([3, 4]);
    expect(a.disagreements[0]!.why).toBe('not read: unknown function mystery');
  });
});

describe("the reader of External Secrets' template tests", () => {
  it('holds each template of a row to its expErr (refused where it says it cannot parse), and any other template to a parse', () => {
    const executeTest = [
      'func TestExecute(t *testing.T) {',
      '\ttests := []struct {',
      '\t\tname   string',
      '\t\ttpl    map[string][]byte',
      '\t\texpErr string',
      '\t}{',
      '\t\t{',
      '\t\t\tname: "b64",',
      '\t\t\ttpl: map[string][]byte{"foo": []byte("{{ .secret | b64dec }}")},',
      '\t\t},',
      '\t\t{',
      '\t\t\tname: "syntax",',
      '\t\t\ttpl: map[string][]byte{"foo": []byte(`{{ #xx }}`)},',
      '\t\t\texpErr: "unable to parse template at key foo",',
      '\t\t},',
      '\t\t{',
      '\t\t\tname: "unknown function, said to parse",',
      '\t\t\ttpl: map[string][]byte{"foo": []byte("{{ .x | mystery }}")},',
      '\t\t},',
      '\t}',
      '}',
      'func TestOther(t *testing.T) { run("{{ .a | toYaml }}") }',
    ].join('\n');
    const table = externalSecretsTemplateCases({ 'template_test.go': executeTest });
    expect(table.cases.map((c) => [c.name, c.want, c.judge()])).toEqual([
      ['b64: {{ .secret | b64dec }}', 'parses', 'parses'],
      ['syntax: {{ #xx }}', 'refused', 'refused'],
      ['unknown function, said to parse: {{ .x | mystery }}', 'parses', 'refused'],
      ['{{ .a | toYaml }}', 'parses', 'parses'],
    ]);
    const a = externalSecretsTemplateAgreement(table);
    expect([a.agree, a.total]).toEqual([3, 4]);
  });
});
