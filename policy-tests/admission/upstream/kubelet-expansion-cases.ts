/**
 * The kubelet's `$(NAME)` expansion tests (kubernetes/kubernetes third_party/forked/golang/expansion/expand_test.go),
 * read as data: `doExpansionTest`'s cases, each input expanded against `TestMapping`'s context (the gate's `expand`,
 * model/cluster/environment.ts, with a name it does not hold written back as `$(NAME)`, as MappingFuncFor does), and
 * `TestMapReference`'s env list, each entry expanded by the ones before it as the kubelet sets a container's variables.
 */
import { containerEnvironment, expand } from '../../model/cluster/environment.ts';
import type { Repo } from '../../model/repository/repo.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';

export interface ExpansionCase {
  test: 'TestMapping' | 'TestMapReference';
  name: string;
  got: () => string;
  expected: string;
}

/** A Go interpreted string literal's text (the tests write no raw strings). */
const goString = (literal: string): string => JSON.parse(literal.replace(/\\'/g, "'")) as string;
const STRING = /"((?:[^"\\]|\\.)*)"/;

/** `"KEY": "value",` lines of a `map[string]string{...}` literal. */
const mapEntries = (text: string): Record<string, string> =>
  Object.fromEntries([...text.matchAll(new RegExp(`${STRING.source}:\\s*${STRING.source}`, 'g'))].map((m) => [goString(`"${m[1]}"`), goString(`"${m[2]}"`)]));

export function kubeletExpansionCases(testSource: string): ExpansionCase[] {
  const cases: ExpansionCase[] = [];
  const context = mapEntries(/func TestMapping\(t \*testing\.T\) \{\s*context := map\[string\]string\{([\s\S]*?)\n\t\}/.exec(testSource)?.[1] ?? '');
  const mapping = (name: string) => context[name] ?? `$(${name})`;
  const body = /func doExpansionTest[\s\S]*?cases := \[\]struct \{[\s\S]*?\}\{([\s\S]*?)\n\t\}\n/.exec(testSource)?.[1] ?? '';
  for (const row of body.matchAll(/name:\s*("(?:[^"\\]|\\.)*"),\s*input:\s*("(?:[^"\\]|\\.)*"),\s*expected:\s*("(?:[^"\\]|\\.)*"),/g)) {
    const input = goString(row[2]!);
    cases.push({ test: 'TestMapping', name: goString(row[1]!), got: () => expand(input, mapping), expected: goString(row[3]!) });
  }
  const reference = /func TestMapReference[\s\S]*?envs := \[\]api\.EnvVar\{([\s\S]*?)\n\t\}\n[\s\S]*?expectedEnv := map\[string\]string\{([\s\S]*?)\n\t\}/.exec(
    testSource,
  );
  if (reference) {
    const env = [...reference[1]!.matchAll(/Name:\s*("(?:[^"\\]|\\.)*"),\s*Value:\s*("(?:[^"\\]|\\.)*"),/g)].map((m) => ({
      name: goString(m[1]!),
      value: goString(m[2]!),
    }));
    const { text } = containerEnvironment({ repo: { resources: [] } as unknown as Repo, resources: [] }, 'default', { env });
    for (const [name, expected] of Object.entries(mapEntries(reference[2]!)))
      cases.push({ test: 'TestMapReference', name, got: () => text(name) ?? '<unset>', expected });
  }
  return cases;
}

/** How many cases the gate expands to what the kubelet's expansion returns. */
export function kubeletExpansionAgreement(cases: readonly ExpansionCase[]): Agreement {
  const a = emptyAgreement();
  for (const c of cases) {
    const got = c.got();
    count(a, {
      group: c.test,
      ok: got === c.expected,
      file: `${c.test}/${c.name}`,
      why: `the gate gives ${JSON.stringify(got)}, the kubelet ${JSON.stringify(c.expected)}`,
    });
  }
  return a;
}
