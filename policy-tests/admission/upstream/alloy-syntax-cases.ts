/**
 * Alloy's own parser tests (grafana/alloy `syntax/parser`, at the tag the chart runs): each file of `testdata/valid`
 * parses without an error (`TestValid`), and each `testdata/*.alloy` reports exactly the errors its `/* ERROR "rx" *\/`
 * comments expect, at the token before the comment (or just after it, `ERROR HERE`), and no other (`TestErrors`).
 */
import { AlloyScanner } from '../../model/alloy/scanner.ts';
import { parseAlloy } from '../../model/alloy/parser.ts';
import { textAgreement, type TextCase, type UpstreamTable } from './agreement.ts';

const ERROR_COMMENT = /^\/\* *ERROR *(HERE)? *"([^"]*)" *\*\/$/;

/** expectedErrors: the message each ERROR comment expects, by the offset it is expected at. */
function expectedErrors(text: string): Map<number, string> {
  const expected = new Map<number, string>();
  const scanner = new AlloyScanner(text, undefined);
  let prev = 0;
  let here = 0;
  for (;;) {
    const { offset, tok, lit } = scanner.scan();
    if (tok === 'EOF') return expected;
    if (tok === 'COMMENT') {
      const m = ERROR_COMMENT.exec(lit);
      if (m) expected.set(m[1] === 'HERE' ? here : prev, m[2]!);
      continue;
    }
    if (tok === 'TERMINATOR' && lit === '\n') continue;
    prev = offset;
    // Go's harness measures a literal by its text and anything else by its token's name.
    here = prev + (['IDENT', 'NUMBER', 'FLOAT', 'STRING'].includes(tok) ? lit.length : tok.length);
  }
}

/** compareErrors, as one text: "ok", or the first mismatch. */
function compareErrors(text: string): string {
  const expected = expectedErrors(text);
  for (const e of parseAlloy(text).errors) {
    const want = expected.get(e.offset);
    if (want === undefined) return `unexpected error at line ${e.line}: ${e.message}`;
    if (!new RegExp(want).test(e.message)) return `line ${e.line}: "${e.message}" does not match "${want}"`;
    expected.delete(e.offset);
  }
  return expected.size === 0 ? 'ok' : `${expected.size} errors not reported: ${[...expected.values()].join('; ')}`;
}

export function alloySyntaxCases(files: readonly { name: string; text: string }[]): UpstreamTable<TextCase> {
  const table: UpstreamTable<TextCase> = { cases: [], unread: [] };
  for (const { name, text } of files) {
    const valid = name.includes('/valid/');
    table.cases.push({
      test: valid ? 'TestValid' : 'TestErrors',
      name,
      judge: () => (valid ? (parseAlloy(text).errors[0]?.message ?? 'ok') : compareErrors(text)),
      want: 'ok',
    });
  }
  return table;
}

export const alloySyntaxAgreement = (table: UpstreamTable<TextCase>) => textAgreement(table, 'Alloy');
