/**
 * TestValidateCustomResourceDefinition read as data (admission/upstream/crd-definition-cases.ts), on a table and
 * types written here in the upstream files' shape: each row's internal object written as the v1 object it converts
 * from, judged by crd-accepted, and compared as the test compares; a row no v1 object can be is declined, one the
 * reader cannot follow is counted apart.
 */
import { describe, expect, it } from 'vitest';
import { crdDefinitionAgreement, crdDefinitionCases, v1Types } from '../../admission/upstream/crd-definition-cases.ts';
import { deprecationWarningAgreement, deprecationWarningCases } from '../../admission/upstream/crd-deprecation-warnings.ts';

// The v1 types as upstream writes them (types.go, types_jsonschema.go), cut to the fields the rows use.
const V1_TYPES = `
type CustomResourceDefinition struct {
	metav1.TypeMeta \`json:",inline"\`
	metav1.ObjectMeta \`json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"\`
	Spec CustomResourceDefinitionSpec \`json:"spec"\`
	Status CustomResourceDefinitionStatus \`json:"status,omitempty"\`
}
type CustomResourceDefinitionSpec struct {
	Group string \`json:"group"\`
	Names CustomResourceDefinitionNames \`json:"names"\`
	Scope ResourceScope \`json:"scope"\`
	Versions []CustomResourceDefinitionVersion \`json:"versions"\`
	Conversion *CustomResourceConversion \`json:"conversion,omitempty"\`
	PreserveUnknownFields bool \`json:"preserveUnknownFields,omitempty"\`
}
type CustomResourceConversion struct {
	Strategy ConversionStrategyType \`json:"strategy"\`
	Webhook *WebhookConversion \`json:"webhook,omitempty"\`
}
type WebhookConversion struct {
	ClientConfig *WebhookClientConfig \`json:"clientConfig,omitempty"\`
	ConversionReviewVersions []string \`json:"conversionReviewVersions"\`
}
type WebhookClientConfig struct {
	URL *string \`json:"url,omitempty"\`
	Service *ServiceReference \`json:"service,omitempty"\`
}
type ServiceReference struct {
	Namespace string \`json:"namespace"\`
	Name string \`json:"name"\`
	Port *int32 \`json:"port,omitempty"\`
}
type CustomResourceDefinitionVersion struct {
	Name string \`json:"name"\`
	Served bool \`json:"served"\`
	Storage bool \`json:"storage"\`
	Schema *CustomResourceValidation \`json:"schema,omitempty"\`
}
type CustomResourceDefinitionNames struct {
	Plural string \`json:"plural"\`
	Singular string \`json:"singular,omitempty"\`
	Kind string \`json:"kind"\`
	ListKind string \`json:"listKind,omitempty"\`
}
type CustomResourceValidation struct {
	OpenAPIV3Schema *JSONSchemaProps \`json:"openAPIV3Schema,omitempty"\`
}
type ResourceScope string
type ValidationRules []ValidationRule
type JSONSchemaProps struct {
	Type string \`json:"type,omitempty"\`
	Properties map[string]JSONSchemaProps \`json:"properties,omitempty"\`
	XPreserveUnknownFields *bool \`json:"x-kubernetes-preserve-unknown-fields,omitempty"\`
	XValidations ValidationRules \`json:"x-kubernetes-validations,omitempty"\`
}
type ValidationRule struct {
	Rule string \`json:"rule"\`
}
`;
const INTERNAL_TYPES = `
const (
	ClusterScoped   ResourceScope = "Cluster"
	NamespaceScoped ResourceScope = "Namespaced"
)
`;

const crd = (spec: string, status = 'StoredVersions: []string{"v1"}') => `&apiextensions.CustomResourceDefinition{
	ObjectMeta: metav1.ObjectMeta{Name: "plural.group.com"},
	Spec: apiextensions.CustomResourceDefinitionSpec{
		Group: "group.com",
		Scope: apiextensions.NamespaceScoped,
		Names: apiextensions.CustomResourceDefinitionNames{Plural: "plural", Singular: "singular", Kind: "Plural", ListKind: "PluralList"},
		${spec}
		PreserveUnknownFields: ptr.To(false),
	},
	Status: apiextensions.CustomResourceDefinitionStatus{${status}},
}`;
const ONE_VERSION = 'Versions: singleVersionList,';
const schema = (props: string) =>
  `Validation: &apiextensions.CustomResourceValidation{OpenAPIV3Schema: &apiextensions.JSONSchemaProps{Type: "object", ${props}}},`;

const TEST = `
func TestValidateCustomResourceDefinition(t *testing.T) {
	singleVersionList := []apiextensions.CustomResourceDefinitionVersion{
		{
			Name:    "v1",
			Served:  true,
			Storage: true,
		},
	}
	tests := []struct {
		name     string
		resource *apiextensions.CustomResourceDefinition
		errors   []validationMatch
	}{
		{name: "admitted", resource: ${crd(`${ONE_VERSION} ${schema('')}`)}, errors: []validationMatch{}},
		{
			name: "untyped field",
			resource: ${crd(`${ONE_VERSION} ${schema('Properties: map[string]apiextensions.JSONSchemaProps{"a": {}},')}`)},
			errors: []validationMatch{required("spec", "validation", "openAPIV3Schema", "properties[a]", "type")},
		},
		{
			name: "a rule that does not compile",
			resource: ${crd(`${ONE_VERSION} ${schema('XValidations: apiextensions.ValidationRules{{Rule: "self.nothing == 1"}},')}`)},
			errors: []validationMatch{invalid("spec", "validation", "openAPIV3Schema", "x-kubernetes-validations[0]", "rule").contains("undefined field")},
		},
		{
			name: "wrong on purpose",
			resource: ${crd(`${ONE_VERSION} ${schema('')}`)},
			errors: []validationMatch{forbidden("spec", "group")},
		},
		{
			name: "bad stored versions",
			resource: ${crd(`${ONE_VERSION} ${schema('')}`, 'StoredVersions: []string{"v2"}')},
			errors: []validationMatch{invalid("status", "storedVersions[0]")},
		},
		{
			name: "a version beside spec.version",
			resource: ${crd(`Version: "v0", ${ONE_VERSION} ${schema('')}`)},
			errors: []validationMatch{invalid("spec", "version")},
		},
		{
			name: "unread",
			resource: ${crd(`${ONE_VERSION} ${schema('Type: otherType(),')}`)},
			errors: []validationMatch{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {})
	}
}
`;

describe('TestValidateCustomResourceDefinition, read as data', () => {
  const table = () => crdDefinitionCases(TEST, [V1_TYPES], [INTERNAL_TYPES]);

  it("names each struct's fields by their JSON tags, an embedded one by its type", () => {
    const types = v1Types([V1_TYPES]);
    expect(types.structs.get('CustomResourceDefinition')?.get('ObjectMeta')).toEqual({ json: 'metadata', type: 'metav1.ObjectMeta' });
    expect(types.structs.get('JSONSchemaProps')?.get('XValidations')).toEqual({ json: 'x-kubernetes-validations', type: 'ValidationRules' });
    expect(types.aliases.get('ValidationRules')).toEqual('[]ValidationRule');
  });

  it('writes each row as the v1 object it converts from: the top-level schema in every version, status left out', () => {
    const { cases } = table();
    expect(cases.find((c) => c.name === 'TestValidateCustomResourceDefinition/untyped field')?.object).toEqual({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'plural.group.com' },
      spec: {
        group: 'group.com',
        scope: 'Namespaced',
        names: { plural: 'plural', singular: 'singular', kind: 'Plural', listKind: 'PluralList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { a: {} } } } }],
        preserveUnknownFields: false,
      },
    });
  });

  it('declines a row no v1 object can be, and counts one it cannot read apart', () => {
    const { cases, declined, unread } = table();
    const test = (name: string) => `TestValidateCustomResourceDefinition/${name}`;
    expect(cases.map((c) => c.name)).toEqual(['admitted', 'untyped field', 'a rule that does not compile', 'wrong on purpose'].map(test));
    expect(declined).toEqual([
      { name: test('bad stored versions'), why: 'an error of status: a create resets status' },
      { name: test('a version beside spec.version'), why: 'a spec.version other than the first version: v1 has no spec.version' },
    ]);
    expect(unread).toEqual([{ name: test('unread'), why: 'unknown function otherType' }]);
  });

  it('agrees where the gate refuses exactly the expected type and field, and says what differs where it does not', () => {
    const agreement = crdDefinitionAgreement(table());
    expect([agreement.agree, agreement.total]).toEqual([3, 5]);
    expect(agreement.disagreements).toEqual([
      { group: 'spec.group', file: 'TestValidateCustomResourceDefinition/wrong on purpose', why: 'expected Forbidden at spec.group' },
      { group: 'not read', file: 'TestValidateCustomResourceDefinition/unread', why: 'not read: unknown function otherType' },
    ]);
  });
});

describe('Test_validateDeprecationWarning, read as data', () => {
  const GO = `
func Test_validateDeprecationWarning(t *testing.T) {
	tests := []struct {
		name string

		deprecated bool
		warning    *string

		want []string
	}{
		{name: "not deprecated, set warning", deprecated: false, warning: ptr.To("foo"), want: []string{"can only be set for deprecated versions"}},
		{name: "long warning", deprecated: true, warning: ptr.To(strings.Repeat("x", 256)), want: nil},
		{name: "too long warning", deprecated: true, warning: ptr.To(strings.Repeat("x", 257)), want: []string{"must be <= 256 characters long"}},
		{name: "wrong on purpose", deprecated: true, warning: ptr.To("fine"), want: []string{"must be <= 256 characters long"}},
		{name: "non-utf-8", deprecated: true, warning: ptr.To("Test message\\xc5foo"), want: []string{"must only contain printable UTF-8 characters"}},
	}
	for _, tt := range tests {}
}
`;

  it("judges each row's version as the gate judges a CRD's, declining a warning no JSON or YAML text can hold", () => {
    const { cases, declined, unread } = deprecationWarningCases(GO);
    expect(unread).toEqual([]);
    expect(declined.map((d) => d.test)).toEqual(['Test_validateDeprecationWarning/non-utf-8']);
    const a = deprecationWarningAgreement(cases);
    expect([a.agree, a.total]).toEqual([3, 4]);
    expect(a.disagreements.map((d) => d.file)).toEqual(['Test_validateDeprecationWarning/wrong on purpose']);
  });
});
