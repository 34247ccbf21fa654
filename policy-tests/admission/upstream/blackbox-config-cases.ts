/**
 * The blackbox exporter's own configuration tests (prometheus/blackbox_exporter config/config_test.go at v0.28.0),
 * read as data: `TestLoadConfig`'s good file, each `TestLoadBadConfigs` row (a testdata file and the error
 * `ReloadConfig` returns, whole), `TestIsEncodingAcceptable`'s rows and `TestNewCELProgram`'s. Each is held to the
 * gate's port (model/blackbox/): the good file loads with no refusal, a bad one's first refusal is upstream's error
 * after "error parsing config file: " (yaml.v3's "unmarshal errors" prefix and line dropped, the gate placing a
 * refusal by its path).
 */
import { parse as parseYaml } from 'yaml';
import { blackboxConfigProblems } from '../../model/blackbox/config.ts';
import { celCompiles, compressionFitsAcceptEncoding } from '../../model/blackbox/go-libraries.ts';
import { textAgreement, type TextCase, type UpstreamTable } from './agreement.ts';

const unquote = (s: string): string => (s.startsWith('`') ? s.slice(1, -1) : (JSON.parse(s) as string));
const GO_STRING = String.raw`("(?:[^"\\]|\\.)*"|\x60[^\x60]*\x60)`;

/** The body of `func <name>(` up to the next top-level func. */
function testBody(source: string, name: string): string {
  const start = source.indexOf(`func ${name}(`);
  if (start < 0) return '';
  const next = source.indexOf('\nfunc ', start + 1);
  return source.slice(start, next < 0 ? undefined : next);
}

/** The first refusal's words, or "loads". */
function loadVerdict(text: string): string {
  const first = blackboxConfigProblems(parseYaml(text))[0];
  return first ? first.message : 'loads';
}

/** The error upstream wants, as the gate words it: yaml.v3's unmarshal-errors list read as its one line's message. */
const wanted = (want: string): string => want.replace(/^error parsing config file: /, '').replace(/^yaml: unmarshal errors:\n\s*line \d+: /, '');

/** Every case of config_test.go, with `testdata(file)` the text of a testdata file (undefined where missing). */
export function blackboxConfigCases(configTest: string, testdata: (file: string) => string | undefined): UpstreamTable<TextCase> {
  const table: UpstreamTable<TextCase> = { cases: [], unread: [] };
  const fromFile = (test: string, input: string, want: string) => {
    const file = input.replace(/^testdata\//, '');
    const text = testdata(file);
    if (text === undefined) table.unread.push({ name: `${test}/${file}`, why: 'its testdata file is missing' });
    else table.cases.push({ test, name: file, judge: () => loadVerdict(text), want });
  };
  for (const m of testBody(configTest, 'TestLoadConfig').matchAll(/ReloadConfig\("([^"]+)"/g)) fromFile('TestLoadConfig', m[1]!, 'loads');
  const bad = testBody(configTest, 'TestLoadBadConfigs');
  for (const m of bad.matchAll(new RegExp(String.raw`input:\s*"([^"]+)",\s*want:\s*${GO_STRING}`, 'g')))
    fromFile('TestLoadBadConfigs', m[1]!, wanted(unquote(m[2]!)));
  const encoding = testBody(configTest, 'TestIsEncodingAcceptable');
  const row = new RegExp(String.raw`${GO_STRING}:\s*\{\s*input:\s*${GO_STRING},\s*acceptEncoding:\s*${GO_STRING},\s*expected:\s*(true|false),`, 'g');
  for (const m of encoding.matchAll(row)) {
    const [input, accept] = [unquote(m[2]!), unquote(m[3]!)];
    table.cases.push({
      test: 'TestIsEncodingAcceptable',
      name: unquote(m[1]!),
      judge: () => String(compressionFitsAcceptEncoding(input, accept)),
      want: m[4]!,
    });
  }
  const cel = testBody(configTest, 'TestNewCELProgram');
  for (const m of cel.matchAll(new RegExp(String.raw`name:\s*${GO_STRING},\s*expr:\s*${GO_STRING},\s*wantErr:\s*(true|false),`, 'g'))) {
    const expr = unquote(m[2]!);
    table.cases.push({ test: 'TestNewCELProgram', name: unquote(m[1]!), judge: () => String(!celCompiles(expr)), want: m[3]! });
  }
  return table;
}

/** How many of the cases the gate answers as the exporter's tests expect. */
export const blackboxConfigAgreement = (table: UpstreamTable<TextCase>) => textAgreement(table, 'the exporter');
