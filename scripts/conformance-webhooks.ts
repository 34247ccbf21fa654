/**
 * The conformance command's readers of the webhooks' own tests: cert-manager's, External Secrets' and MetalLB's
 * validation tables, each from a checkout at the version the repository deploys, against the gate's port of the
 * webhook (policy-tests/admission/webhooks/).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { conformance } from '../policy-tests/index.ts';
import { readText, report } from './lib/agreement-report.ts';

/** cert-manager's Certificate and Issuer validation tests, against the gate's port of its webhook; its solver picker's. */
export function reportCertManager(checkout: string, print: (line: string) => void): void {
  const read = (dir: string) =>
    readdirSync(join(checkout, dir))
      .filter((f) => f.endsWith('.go') && !f.endsWith('_test.go'))
      .map((f) => readText(join(checkout, dir, f)));
  const table = conformance.certManagerCases(
    readText(join(checkout, 'internal/apis/certmanager/validation/certificate_test.go')),
    [...read('pkg/apis/certmanager/v1'), ...read('pkg/apis/meta/v1')],
    read('internal/apis/certmanager'),
  );
  report(`cert-manager's Certificate validation tests (${table.declined.length} declined)`, conformance.certManagerAgreement(table), print);
  const v1 = [...read('pkg/apis/certmanager/v1'), ...read('pkg/apis/acme/v1'), ...read('pkg/apis/meta/v1')];
  const issuers = conformance.certManagerIssuerCases(
    readText(join(checkout, 'internal/apis/certmanager/validation/issuer_test.go')),
    v1,
    read('internal/apis/certmanager/validation'),
  );
  report("cert-manager's Issuer validation tests", conformance.certManagerIssuerAgreement(issuers), print);
  const solvers = conformance.certManagerSolverCases(readText(join(checkout, 'pkg/util/solverpicker/solverpicker_test.go')), v1);
  report("cert-manager's solver picker tests", conformance.certManagerSolverAgreement(solvers), print);
}

/** External Secrets' ExternalSecret and refresh interval tests, against the gate's port of its webhook. */
export function reportExternalSecrets(checkout: string, print: (line: string) => void): void {
  const dir = join(checkout, 'apis/externalsecrets/v1');
  const table = conformance.externalSecretsCases({
    validatorTest: readText(join(dir, 'externalsecret_validator_test.go')),
    typesTest: readText(join(dir, 'secretstore_types_test.go')),
    v1: readdirSync(dir)
      .filter((f) => f.endsWith('.go') && !f.endsWith('_test.go'))
      .map((f) => readText(join(dir, f))),
  });
  report(`External Secrets' validation tests (${table.declined.length} declined)`, conformance.externalSecretsAgreement(table), print);
}

/** MetalLB's configuration parse tests and its allocator's, against the gate's ports of its webhooks' parse and its controller. */
export function reportMetalLB(checkout: string, print: (line: string) => void): void {
  const table = conformance.metallbCases({
    configTest: readText(join(checkout, 'internal/config/config_test.go')),
    validationTest: readText(join(checkout, 'internal/config/validation_test.go')),
    types: ['api/v1beta1', 'api/v1beta2'].flatMap((d) =>
      readdirSync(join(checkout, d))
        .filter((f) => f.endsWith('_types.go'))
        .map((f) => readText(join(checkout, d, f))),
    ),
  });
  report(
    "MetalLB's configuration tests (TestParse, every kind; TestValidate and TestValidateFRR, the BGP modes' own checks)",
    conformance.metallbAgreement(table),
    print,
  );
  const allocator = conformance.metallbAllocatorCases(readText(join(checkout, 'internal/allocator/allocator_test.go')));
  report("MetalLB's allocator tests (TestAssignment, TestBuggyIPs), each test's steps in order", conformance.metallbAllocatorAgreement(allocator), print);
}
