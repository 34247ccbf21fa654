/**
 * Alertmanager's own configuration tests (prometheus/alertmanager config/config_test.go at v0.34.0), read as data:
 * each test that loads an inline configuration (`in := ...; Load(in)`) with the error it expects, each testdata file
 * loaded with the error it expects or none, and `TestEmptyConfigOfIntegration`'s rows. Each is held to the gate's port
 * (model/alertmanager/): its first refusal is upstream's error, or it loads. A row about an integration the gate does
 * not port (only Slack and webhooks are) is declined, with why.
 */
import { parse as parseYaml } from 'yaml';
import { alertmanagerConfigProblems } from '../../model/alertmanager/config.ts';
import { OTHER_INTEGRATIONS } from '../../model/alertmanager/receivers.ts';
import { parseMatchers } from '../../model/alertmanager/matchers.ts';
import { goUnquote } from '../../model/go/strconv.ts';
import { textAgreement, type TextCase, type UpstreamTable } from './agreement.ts';

const GO_STRING = String.raw`("(?:[^"\\]|\\.)*"|\x60[^\x60]*\x60)`;
const unquote = (s: string): string => (s.startsWith('`') ? s.slice(1, -1) : (JSON.parse(s) as string));

function verdict(text: string): string {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    return `yaml: ${(err as Error).message.split('\n')[0]}`;
  }
  return alertmanagerConfigProblems(doc)[0]?.message ?? 'loads';
}

/** Whether a configuration's text names an integration the gate does not port. */
const unported = (text: string): string | undefined =>
  OTHER_INTEGRATIONS.find((k) => text.includes(`${k}:`)) ??
  ['opsgenie', 'victorops', 'telegram', 'rocketchat', 'mattermost', 'wechat', 'smtp', 'webex', 'jira'].find((k) => new RegExp(`\\b${k}_`).test(text));

/** The tests of config_test.go, each func's body by its name. */
function tests(source: string): { name: string; body: string }[] {
  return source
    .split(/\nfunc (?=Test)/)
    .slice(1)
    .map((chunk) => ({ name: /^(Test\w+)/.exec(chunk)?.[1] ?? '', body: chunk }));
}

/** Every case of config_test.go, with `testdata(file)` the text of a testdata file (undefined where missing). */
export function alertmanagerConfigCases(configTest: string, testdata: (file: string) => string | undefined): UpstreamTable<TextCase> {
  const table: UpstreamTable<TextCase> = { cases: [], unread: [] };
  const add = (test: string, name: string, text: string, want: string) => {
    const judge = () => verdict(text);
    const integration = want === 'loads' ? undefined : unported(text);
    if (integration) table.unread.push({ name: `${test}/${name}`, why: `it is about ${integration}, an integration whose fields the gate does not port` });
    else table.cases.push({ test, name, judge, want });
  };
  for (const { name, body } of tests(configTest)) {
    const inline = new RegExp(String.raw`in := ${GO_STRING}`).exec(body)?.[1] ?? (/var in string/.test(body) ? '""' : undefined);
    const expected = new RegExp(String.raw`expected := ${GO_STRING}`).exec(body)?.[1];
    if (inline !== undefined && /Load\(in\)/.test(body) && expected !== undefined) add(name, name, unquote(inline), unquote(expected));
    for (const m of body.matchAll(
      new RegExp(String.raw`LoadFile\("testdata/([^"]+)"\)\s*\n\s*if err (!=|==) nil \{[^}]*\}(?:\s*\n\s*if err\.Error\(\) != ${GO_STRING})?`, 'g'),
    )) {
      const text = testdata(m[1]!);
      if (text === undefined) table.unread.push({ name: `${name}/${m[1]}`, why: 'its testdata file is missing' });
      else if (m[2] === '!=') add(name, m[1]!, text, 'loads');
      else if (m[3] !== undefined) add(name, m[1]!, text, unquote(m[3]));
    }
  }
  const template = new RegExp(String.raw`baseConfigTmpl := ${GO_STRING}`).exec(configTest)?.[1];
  const rows = /func TestEmptyConfigOfIntegration[\s\S]*?\n}\n/.exec(configTest)?.[0] ?? '';
  for (const m of rows.matchAll(new RegExp(String.raw`integration:\s*${GO_STRING},\s*expectedErr:\s*${GO_STRING}`, 'g'))) {
    const [integration, want] = [unquote(m[1]!), unquote(m[2]!)];
    const text = unquote(template ?? '``').replace('%s', integration);
    if (integration !== 'slack_configs' && want.startsWith('no global'))
      table.unread.push({
        name: `TestEmptyConfigOfIntegration/${integration}`,
        why: 'it is about the global settings of an integration the gate does not port',
      });
    else table.cases.push({ test: 'TestEmptyConfigOfIntegration', name: integration, judge: () => verdict(text), want });
  }
  return table;
}

const MATCH_TYPES: Record<string, string> = { MatchEqual: '=', MatchNotEqual: '!=', MatchRegexp: '=~', MatchNotRegexp: '!~' };
const shownMatchers = (ms: readonly { type: string; name: string; value: string }[]) => JSON.stringify(ms.map((m) => [m.name, m.type, m.value]));

/**
 * The rows of pkg/labels/parse_test.go's TestMatchers (the classic matchers parser the operator loads the configuration
 * with): each input with the matchers it reads to (NewMatcher's type, name and value, in order) or its error.
 */
export function alertmanagerMatcherCases(parseTest: string): UpstreamTable<TextCase> {
  const table: UpstreamTable<TextCase> = { cases: [], unread: [] };
  const body = /func TestMatchers\(t \*testing\.T\) \{[\s\S]*?\n}\n/.exec(parseTest)?.[0] ?? '';
  const rows = body.matchAll(
    new RegExp(
      String.raw`input:\s*${GO_STRING},\s*(?:err:\s*${GO_STRING}|want:\s*make\(\[\]\*Matcher, 0\)|want: func\(\) \[\]\*Matcher \{([\s\S]*?)\n\t*\}\(\))`,
      'g',
    ),
  );
  for (const [, input, err, want] of rows) {
    const text = goUnquote(input!);
    const wanted =
      err !== undefined
        ? goUnquote(err)
        : want === undefined
          ? '[]'
          : (() => {
              const ms = [...want.matchAll(new RegExp(String.raw`NewMatcher\((\w+), ${GO_STRING}, ${GO_STRING}\)`, 'g'))].map(([, type, name, value]) => ({
                type: MATCH_TYPES[type!] ?? '?',
                name: goUnquote(name!) ?? '?',
                value: goUnquote(value!) ?? '?',
              }));
              return shownMatchers(ms);
            })();
    if (text === undefined || wanted === undefined)
      table.unread.push({ name: `TestMatchers/${input}`, why: 'its input or expectation is not a Go string the reader reads' });
    else
      table.cases.push({
        test: 'TestMatchers',
        name: text,
        judge: () => {
          const got = parseMatchers(text);
          return 'error' in got ? got.error : shownMatchers(got);
        },
        want: wanted,
      });
  }
  return table;
}

/** How many of the cases the gate answers as Alertmanager's tests expect. */
export const alertmanagerConfigAgreement = (table: UpstreamTable<TextCase>) => textAgreement(table, 'Alertmanager');
