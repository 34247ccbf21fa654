/**
 * External Secrets' template tests (runtime/template/v2, each `_test.go`), read as data and held to the gate's parse of
 * an ExternalSecret template (`templateParseProblem`, model/cluster/external-secrets.ts: Go's text/template with the
 * engine's functions). A template is a string literal holding an action: in a table row's `tpl` map, where the row's
 * `expErr` says whether External Secrets refuses to parse it ("unable to parse template"), or anywhere else in the
 * tests, which execute it and so parse it. Nothing upstream is committed; the checkout is read where it lies.
 */
import { templateParseProblem } from '../../model/cluster/external-secrets.ts';
import { textAgreement, type Agreement, type TextCase, type UpstreamTable } from './agreement.ts';
import { blockAt, goStringValue } from './go-literals.ts';

const LITERAL = /`[^`]*`|"(?:[^"\\\n]|\\.)*"/g;
const PARSE_ERROR = 'unable to parse template';

/** The string literals of a Go text that hold an action, each unquoted. */
const templatesIn = (text: string): string[] => [...text.matchAll(LITERAL)].map((m) => goStringValue(m[0])).filter((t) => t.includes('{{'));

/** Each row of every `:= []struct {...}{...}` table of a Go source, as its text. */
function tableRowTexts(source: string): string[] {
  const rows: string[] = [];
  for (const m of source.matchAll(/:= (?:range )?\[\]struct \{/g)) {
    const structOpen = source.indexOf('{', m.index);
    const table = blockAt(source, source.indexOf('{', structOpen + blockAt(source, structOpen).length + 2));
    for (let i = table.indexOf('{'); i !== -1;) {
      const row = blockAt(table, i);
      rows.push(row);
      i = table.indexOf('{', i + row.length + 2);
    }
  }
  return rows;
}

const field = (row: string, name: string): string | undefined => {
  const m = new RegExp(`\\b${name}:\\s*("(?:[^"\\\\\\n]|\\\\.)*"|\`[^\`]*\`)`).exec(row);
  return m ? goStringValue(m[1]!) : undefined;
};

/** The cases of the engine's test files: each file's text, by its name. */
export function externalSecretsTemplateCases(tests: Readonly<Record<string, string>>): UpstreamTable<TextCase> {
  const cases: TextCase[] = [];
  const said = (problem: string | undefined) => (problem === undefined ? 'parses' : 'refused');
  for (const [file, source] of Object.entries(tests)) {
    const inRows = new Set<string>();
    for (const row of tableRowTexts(source)) {
      const at = row.search(/\btpl:\s*map\[string\]\[\]byte\{/);
      if (at === -1) continue;
      const tpl = blockAt(row, row.indexOf('{', at));
      const want = field(row, 'expErr')?.includes(PARSE_ERROR) ? 'refused' : 'parses';
      for (const template of templatesIn(tpl)) {
        inRows.add(template);
        cases.push({ test: file, name: `${field(row, 'name') ?? '?'}: ${template}`, judge: () => said(templateParseProblem('k', template)), want });
      }
    }
    for (const template of templatesIn(source).filter((t) => !inRows.has(t)))
      cases.push({ test: file, name: template, judge: () => said(templateParseProblem('k', template)), want: 'parses' });
  }
  return { cases, unread: [] };
}

export const externalSecretsTemplateAgreement = (table: UpstreamTable<TextCase>): Agreement => textAgreement(table, 'External Secrets');
