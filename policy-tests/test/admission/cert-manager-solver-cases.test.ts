/**
 * The reader of cert-manager's solver picker tests (upstream/cert-manager-solver-cases.ts), on a table written in
 * their form: solvers defined before the table, a wildcard authorization, a row expecting none.
 */
import { describe, expect, it } from 'vitest';
import { certManagerSolverAgreement, certManagerSolverCases } from '../../admission/upstream/cert-manager-solver-cases.ts';

const TEST = `
func TestPick(t *testing.T) {
	httpSolver := cmacme.ACMEChallengeSolver{
		HTTP01: &cmacme.ACMEChallengeSolverHTTP01{
			Ingress: &cmacme.ACMEChallengeSolverHTTP01Ingress{Name: "http"},
		},
	}
	challengeDNS01 := &cmacme.ACMEChallenge{
		Type: "dns-01",
	}
	challengeHTTP01 := &cmacme.ACMEChallenge{
		Type: "http-01",
	}
	tests := map[string]struct {
		issuer            cmapi.GenericIssuer
		order             *cmacme.Order
		authz             *cmacme.ACMEAuthorization
		expectedSolver    *cmacme.ACMEChallengeSolver
		expectedChallenge *cmacme.ACMEChallenge
	}{
		"a name, solved over HTTP": {
			issuer: &cmapi.Issuer{Spec: cmapi.IssuerSpec{IssuerConfig: cmapi.IssuerConfig{ACME: &cmacme.ACMEIssuer{Solvers: []cmacme.ACMEChallengeSolver{httpSolver}}}}},
			order: &cmacme.Order{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"a": "b"}}},
			authz: &cmacme.ACMEAuthorization{Identifier: "example.com", Challenges: []cmacme.ACMEChallenge{*challengeHTTP01, *challengeDNS01}},
			expectedSolver:    &httpSolver,
			expectedChallenge: challengeHTTP01,
		},
		"a wildcard, which HTTP cannot solve": {
			issuer: &cmapi.Issuer{Spec: cmapi.IssuerSpec{IssuerConfig: cmapi.IssuerConfig{ACME: &cmacme.ACMEIssuer{Solvers: []cmacme.ACMEChallengeSolver{httpSolver}}}}},
			order: &cmacme.Order{},
			authz: &cmacme.ACMEAuthorization{Identifier: "example.com", Wildcard: new(true), Challenges: []cmacme.ACMEChallenge{*challengeDNS01}},
		},
	}
}
`;
const V1 = `
type Issuer struct {
	metav1.ObjectMeta \`json:"metadata,omitempty"\`
	Spec IssuerSpec \`json:"spec"\`
}
type IssuerSpec struct {
	IssuerConfig \`json:",inline"\`
}
type IssuerConfig struct {
	ACME *cmacme.ACMEIssuer \`json:"acme,omitempty"\`
}
type ACMEIssuer struct {
	Solvers []ACMEChallengeSolver \`json:"solvers,omitempty"\`
}
type ACMEChallengeSolver struct {
	HTTP01 *ACMEChallengeSolverHTTP01 \`json:"http01,omitempty"\`
}
type ACMEChallengeSolverHTTP01 struct {
	Ingress *ACMEChallengeSolverHTTP01Ingress \`json:"ingress,omitempty"\`
}
type ACMEChallengeSolverHTTP01Ingress struct {
	Name string \`json:"name,omitempty"\`
}
type Order struct {
	metav1.ObjectMeta \`json:"metadata,omitempty"\`
}
type ACMEAuthorization struct {
	Identifier string \`json:"identifier,omitempty"\`
	Wildcard *bool \`json:"wildcard,omitempty"\`
	Challenges []ACMEChallenge \`json:"challenges,omitempty"\`
}
type ACMEChallenge struct {
	Type string \`json:"type"\`
}
`;

describe("the reader of cert-manager's solver picker tests", () => {
  const table = certManagerSolverCases(TEST, [V1]);

  it('reads each row: the solvers, the labels, the name (a wildcard with its *.), the challenges offered, the expected pick', () => {
    expect(table.unread).toEqual([]);
    expect(table.cases.map((c) => [c.name, c.domain, c.challenges, c.labels, c.expected])).toEqual([
      [
        'a name, solved over HTTP',
        'example.com',
        ['http-01', 'dns-01'],
        { a: 'b' },
        { solver: { http01: { ingress: { name: 'http' } } }, challenge: 'http-01' },
      ],
      ['a wildcard, which HTTP cannot solve', '*.example.com', ['dns-01'], {}, undefined],
    ]);
  });

  it('agrees where the gate picks as the row expects, and disagrees where it does not', () => {
    expect(certManagerSolverAgreement(table).agree).toBe(2);
    const wrong = { ...table, cases: [{ ...table.cases[1]!, expected: { solver: {}, challenge: 'dns-01' } }] };
    expect(certManagerSolverAgreement(wrong).disagreements[0]!.why).toBe('the gate picks undefined, cert-manager {"solver":{},"challenge":"dns-01"}');
  });
});
