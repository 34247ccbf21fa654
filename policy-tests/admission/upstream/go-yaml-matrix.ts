/**
 * The gate's reading of YAML against go-yaml v2's own, on the YAML test suite: perlpunk/yaml-test-matrix runs every
 * suite input through go-yaml v2 (yaml/yaml-runtimes' go-yaml-json: gopkg.in/yaml.v2's decoder, each document to JSON)
 * and publishes its verdict on its gh-pages branch (`js/data-valid.js` and `js/data-invalid.js` hold the inputs,
 * `details/<id>.html` each runtime's result). go-yaml v2 is what kubectl, Argo CD and Helm read YAML with
 * (sigs.k8s.io/yaml). A case agrees where the gate takes the input as go-yaml takes it: both read it, or both refuse
 * it. The gate reads it where the `yaml` library reads every document (with go-yaml's quoted-scalar leniency,
 * model/yaml/go-quoted.ts) and go-yaml refuses nothing of it that the `yaml` library reads (model/yaml/go-refusals.ts).
 */
import { readDocuments } from '../../model/yaml/go-quoted.ts';
import { goYamlRefusals } from '../../model/yaml/go-refusals.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';

export interface GoYamlMatrixCase {
  id: string;
  text: string;
  /** go-yaml v2's verdict, and its first line where it refuses. */
  goReads: boolean;
  goSays: string;
}

/** The matrix's inputs (`var data = {...}` in its data-*.js files): each test's id and in.yaml. */
export function matrixInputs(dataJs: string): { id: string; text: string }[] {
  const json = dataJs.slice(dataJs.indexOf('{'), dataJs.lastIndexOf('}') + 1);
  const data = JSON.parse(json.slice(0, json.indexOf('\n;') === -1 ? undefined : json.indexOf('\n;'))) as { tests: Record<string, { in_yaml: string }> };
  return Object.entries(data.tests).map(([id, t]) => ({ id, text: t.in_yaml }));
}

const unescapeHtml = (s: string) =>
  s
    .replace(/<[^>]+>/g, '')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/**
 * go-yaml v2's verdict on one test, from its details page: it reads the input where its JSON matched or differed from
 * the suite's (json_ok, json_diff), where it read an input the specification refuses (invalid_incorrect), or where the
 * suite has no JSON to compare and it printed some (na without an error); it refuses where it errs (error,
 * invalid_correct, na with an error). Undefined where the page has no go-yaml result.
 */
export function goYamlVerdict(detailsHtml: string): { goReads: boolean; goSays: string } | undefined {
  const m = /framework_box_([a-z_]+)" id="go-yaml-json">[\s\S]*?<pre>([\s\S]*?)<\/pre>/.exec(detailsHtml);
  if (!m) return undefined;
  const status = m[1]!;
  const said = unescapeHtml(m[2]!).trim();
  const erred = /^(yaml:|panic:)/.test(said);
  const goReads = status === 'json_ok' || status === 'json_diff' || status === 'invalid_incorrect' || (status === 'na' && !erred);
  return { goReads, goSays: goReads ? 'reads it' : `refuses it: ${said.split('\n')[0]}` };
}

export function goYamlMatrixAgreement(cases: readonly GoYamlMatrixCase[]): Agreement {
  const a = emptyAgreement();
  for (const c of cases) {
    const gateReads = readDocuments(c.text).docs.every((d) => d.errors.length === 0) && goYamlRefusals(c.text).length === 0;
    const group = c.goReads ? 'go-yaml reads' : 'go-yaml refuses';
    count(a, { group, ok: gateReads === c.goReads, file: c.id, why: `go-yaml ${c.goSays}; the gate ${gateReads ? 'reads it' : 'refuses it'}` });
  }
  return a;
}
