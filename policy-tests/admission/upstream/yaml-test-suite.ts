/**
 * The fast manifest reader (model/yaml/fast-manifest.ts) against the YAML test suite (yaml/yaml-test-suite, its
 * `data` branch: each case's `in.yaml`, with `error` beside an input the specification refuses): on every input, it
 * must read what the `yaml` library reads, or leave the input to it. A case it reads is grouped "read", one it leaves
 * "left"; a refused input it reads is a disagreement whatever the `yaml` library says.
 */
import { readerAgreement } from '../../model/yaml/reader-agreement.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';

/** One input of the suite: its case id (`<id>` or `<id>/<n>`), its text, and whether the specification refuses it. */
export interface YamlSuiteCase {
  id: string;
  text: string;
  refused: boolean;
}

export function yamlSuiteAgreement(cases: readonly YamlSuiteCase[]): Agreement {
  const a = emptyAgreement();
  for (const { id, text, refused } of cases) {
    const verdict = readerAgreement(text);
    const why = refused && verdict === 'same' ? 'the specification refuses it, and the fast reader read it' : verdict;
    count(a, { group: verdict === 'left' ? 'left' : 'read', ok: why === 'same' || why === 'left', file: id, why });
  }
  return a;
}
