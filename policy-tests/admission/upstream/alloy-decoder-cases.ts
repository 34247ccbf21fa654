/**
 * Alloy's own decoder tests (grafana/alloy `syntax/vm/vm_block_test.go`, at the tag the chart runs): each case's input
 * decoded into the test's struct, its schema read from the struct's `alloy` tags by `alloy:reference`'s walk, against
 * the gate's port of the decoder's structural checks (model/alloy/arguments.ts). A case that expects no error agrees
 * when the port finds none; one that expects an error agrees when the port's first finding is that error (its line
 * where Alloy gives a position; Alloy stops at its first). vm_errors_test.go's cases decode constant values into a
 * struct's typed fields (model/alloy/values.ts). An error about a value an expression works out, or a component's own
 * validation, is not the port's to find: such a case is counted as not in scope.
 */
import { parseAlloy } from '../../model/alloy/parser.ts';
import { argumentProblems, blockProblems, type AlloySchemas } from '../../model/alloy/arguments.ts';
import { textAgreement, type RowNote, type TextCase, type UpstreamTable } from './agreement.ts';

export interface AlloyDecoderRow {
  test: string;
  name: string;
  input: string;
  /** `parser.ParseFile`: the input is a body; `parseBlock`: it is one block, decoded with its label. */
  mode: 'file' | 'block';
  /** The schema of the struct the test decodes into, and every schema it reaches. */
  root: string;
  schemas: AlloySchemas;
  /** The error the test expects (as Alloy prints it), or `ok`. */
  want: string;
  /** `contains`: the test expects its text within Alloy's error (require.ErrorContains). */
  match?: 'contains';
}

/** The errors the decoder's structure gives, which the port judges; any other is a value's. */
const STRUCTURAL =
  /must be an attribute|must be a block|missing required|unrecognized (?:attribute|block) name|may only be (?:provided|specified) once|labels|requires (?:non-)?empty label|nested blocks not supported|should be (?:string|number|bool|array|object), got|does not have field named|time: (?:invalid|missing unit|unknown unit)/;

/** The port's first finding as Alloy prints it: `line:col: message` for a diagnostic (the column as the want has it), else the message. */
function firstProblem(row: AlloyDecoderRow): string {
  const { body, errors } = parseAlloy(row.input);
  if (errors[0]) return `parse error: ${errors[0].message}`;
  const block = body[0];
  if (row.mode === 'block' && block?.kind !== 'block') return 'the input holds no block';
  // parseBlock decodes the one block, its label included; a file is a body, decoded as a component's arguments are.
  const problems =
    row.mode === 'block' && block?.kind === 'block' ? blockProblems(block, row.root, row.schemas) : argumentProblems(body, row.root, row.schemas);
  const first = problems[0];
  if (!first) return 'ok';
  if (row.match === 'contains') return first.message.includes(row.want) ? row.want : first.message;
  // A position as Alloy prints it, its file's name first where the test parses one (`test:1:7: `).
  const at = /^((?:[\w.]+:)?)(\d+):(\d+): /.exec(row.want);
  return at && first.line > 0 ? `${at[1]}${first.line}:${at[3]}: ${first.message}` : first.message;
}

/**
 * The cases the port is held to; the rows the reader could not follow (an input built at run time, a table) as
 * unread, counted against it; and those whose error is a value's, out of the port's scope, listed apart.
 */
export function alloyDecoderCases(rows: readonly AlloyDecoderRow[], unread: readonly RowNote[]): { table: UpstreamTable<TextCase>; outOfScope: RowNote[] } {
  const table: UpstreamTable<TextCase> = { cases: [], unread: [...unread] };
  const outOfScope: RowNote[] = [];
  for (const row of rows) {
    if (row.want !== 'ok' && !STRUCTURAL.test(row.want)) outOfScope.push({ name: `${row.test}/${row.name}`, why: row.want });
    else table.cases.push({ test: row.test, name: row.name, judge: () => firstProblem(row), want: row.want });
  }
  return { table, outOfScope };
}

export const alloyDecoderAgreement = (table: UpstreamTable<TextCase>) => textAgreement(table, 'Alloy');
