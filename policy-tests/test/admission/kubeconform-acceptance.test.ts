/**
 * kubeconform's acceptance tests read as data (admission/upstream/kubeconform-acceptance.ts), on tests written here in
 * acceptance.bats' shape, run through a stand-in for the gate: what each asserts, its flags as the gate spells them,
 * what is declined and why, and how a run is held to it.
 */
import { describe, expect, it } from 'vitest';
import { gateVerdicts, kubeconformAgreement, kubeconformCases, shellWords, summaryCounts } from '../../admission/upstream/kubeconform-acceptance.ts';

const BATS = `#!/usr/bin/env bats

@test "Pass when parsing a multi-document config file" {
  run bin/kubeconform -summary fixtures/multi_valid.yaml
  [ "$status" -eq 0 ]
  [ "$output" = "Summary: 6 resources found in 1 file - Valid: 6, Invalid: 0, Errors: 0, Skipped: 0" ]
}

@test "Skip when parsing a resource from a kind to skip" {
  run bin/kubeconform -verbose -skip ReplicationController fixtures/valid.yaml
  [ "$status" -eq 0 ]
  [ "$output" = "fixtures/valid.yaml - bob ReplicationController skipped" ]
}

@test "Fail when parsing a config with additional properties and strict set" {
  run bin/kubeconform -strict -kubernetes-version 1.20.0 fixtures/extra_property.yaml
  [ "$status" -eq 1 ]
}

@test "Fail when parsing a List that contains an invalid resource from stdin" {
  run bash -c "cat fixtures/list_invalid.yaml | bin/kubeconform -summary -"
  [ "$status" -eq 1 ]
  [ "\${lines[0]}" == 'stdin - ReplicationController bob is invalid: problem validating schema. Check JSON formatting: at '\\''/spec/replicas'\\'': got string' ]
  [ "\${lines[1]}" == 'Summary: 2 resources found parsing stdin - Valid: 1, Invalid: 1, Errors: 0, Skipped: 0' ]
}

@test "Pass when using a valid, preset -schema-location" {
  run bin/kubeconform -schema-location default fixtures/valid.yaml
  [ "$status" -eq 0 ]
}

@test "Return relevant error for non-existent file" {
  run bin/kubeconform fixtures/not-here
  [ "$status" -eq 1 ]
}

@test "JUnit output can be validated against the Junit schema definition" {
  run bash -c "bin/kubeconform -output junit -summary fixtures/valid.yaml > output.xml"
  [ "$status" -eq 0 ]
  run xmllint --noout --schema fixtures/junit.xsd output.xml
  [ "$status" -eq 0 ]
}
`;

describe("kubeconform's acceptance tests, read as data", () => {
  it('splits a shell line as bash does, quotes joined to their word', () => {
    expect(shellWords(`bin/kubeconform -schema-location 'a b'"c" x\\'y`)).toEqual(['bin/kubeconform', '-schema-location', 'a bc', "x'y"]);
  });

  it("writes each test's command as the gate's, with what it asserts", () => {
    const { cases } = kubeconformCases(BATS);
    expect(cases).toEqual([
      {
        test: 'Pass when parsing a multi-document config file',
        args: ['--no-strict', '--summary', 'fixtures/multi_valid.yaml'],
        status: 0,
        summary: { found: 6, valid: 6, invalid: 0, errors: 0, skipped: 0 },
        verdicts: [],
      },
      {
        test: 'Skip when parsing a resource from a kind to skip',
        args: ['--no-strict', '--verbose', '--skip', 'ReplicationController', 'fixtures/valid.yaml'],
        status: 0,
        verdicts: [{ kind: 'ReplicationController', name: 'bob', verdict: 'skipped' }],
      },
      {
        test: 'Fail when parsing a config with additional properties and strict set',
        args: ['--kubernetes-version', '1.20.0', 'fixtures/extra_property.yaml'],
        status: 1,
        verdicts: [],
      },
      {
        test: 'Fail when parsing a List that contains an invalid resource from stdin',
        args: ['--no-strict', '--summary', '-'],
        stdin: 'fixtures/list_invalid.yaml',
        status: 1,
        summary: { found: 2, valid: 1, invalid: 1, errors: 0, skipped: 0 },
        verdicts: [{ kind: 'ReplicationController', name: 'bob', verdict: 'invalid' }],
      },
    ]);
  });

  it('declines what the gate does not have, what needs another tool, and what it keeps otherwise by design, each with why', () => {
    expect(kubeconformCases(BATS).declined).toEqual([
      { test: 'Pass when using a valid, preset -schema-location', why: 'the gate has no schema locations: its schemas are bundled, offline' },
      { test: 'Return relevant error for non-existent file', why: 'by design: a path that does not exist is a usage error here: exit 2' },
      { test: 'JUnit output can be validated against the Junit schema definition', why: 'runs another tool after kubeconform' },
    ]);
  });

  it("reads the gate's summary and its PASS, FAIL and SKIP lines", () => {
    const out =
      'FAIL - stdin:26:15 - ReplicationController bob - schema [schema] ...\nSKIP - x.yaml - Pod p\nSummary: 2 resources found - Valid: 1, Invalid: 1, Errors: 0, Skipped: 0 (schema layer only)';
    expect(summaryCounts(out)).toEqual({ found: 2, valid: 1, invalid: 1, errors: 0, skipped: 0 });
    expect(gateVerdicts(out)).toEqual([
      { kind: 'ReplicationController', name: 'bob', verdict: 'invalid' },
      { kind: 'Pod', name: 'p', verdict: 'skipped' },
    ]);
  });

  it('agrees where exit, counts and verdicts are kubeconform’s, and says which differ where they are not', async () => {
    const { cases } = kubeconformCases(BATS);
    const agreement = await kubeconformAgreement(cases, async (c) => {
      if (c.stdin) return { missing: `${c.stdin} is not in this checkout` };
      if (c.test.startsWith('Skip'))
        return {
          status: 0,
          output: 'PASS - fixtures/valid.yaml - ReplicationController bob\nSummary: 1 resource found - Valid: 1, Invalid: 0, Errors: 0, Skipped: 0',
        };
      if (c.test.startsWith('Pass')) return { status: 0, output: 'Summary: 6 resources found - Valid: 6, Invalid: 0, Errors: 0, Skipped: 0' };
      return { status: 2, output: '' };
    });
    expect([agreement.agree, agreement.total]).toEqual([1, 4]);
    expect(agreement.disagreements.map((d) => [d.file, d.why])).toEqual([
      ['Skip when parsing a resource from a kind to skip', 'ReplicationController bob not skipped'],
      ['Fail when parsing a config with additional properties and strict set', "exit 2, kubeconform's 1"],
      ['Fail when parsing a List that contains an invalid resource from stdin', 'not read: fixtures/list_invalid.yaml is not in this checkout'],
    ]);
  });
});
