/**
 * Alloy's decoder tests (`syntax/vm/vm_block_test.go`) read as rows for the conformance command: each test function
 * or `t.Run` case's input (a raw string), whether it parses a file or one block, the struct it decodes into (its type
 * declarations, the function's own and the case's, walked into schemas by alloy-arguments.ts as `alloy:reference`
 * walks Alloy's components), and what it expects: `require.NoError` on the evaluation, or `require.EqualError`'s text.
 * A case whose input is built at run time, or that runs a table, is not read, and says why.
 */
import type { conformance } from '../../policy-tests/index.ts';
import { goPackage, hoistAnonymousStructs } from '../lib/go-structs.ts';
import { schemaOf } from './alloy-arguments.ts';

interface Unread {
  name: string;
  why: string;
}

/** The text of each `\t<indent>type X struct {...}` of a body, dedented to a top-level declaration. */
function typeDeclarations(body: string): string[] {
  const out: string[] = [];
  for (const m of body.matchAll(/^(\t+)type\s+\w+\s+struct\s*\{(?:\}$|[\s\S]*?^\1\})/gm)) out.push(m[0].replace(new RegExp(`^${m[1]}`, 'gm'), ''));
  return out;
}

/** The `t.Run("name", func(t *testing.T) {...})` cases directly inside a test function's body, at one tab. */
function runs(body: string): { name: string; body: string }[] {
  return [...body.matchAll(/^\tt\.Run\("([^"]+)", func\(t \*testing\.T\) \{\n([\s\S]*?)^\t\}\)/gm)].map((m) => ({ name: m[1]!, body: m[2]! }));
}

async function row(test: string, name: string, { body, shared }: { body: string; shared: string[] }): Promise<conformance.AlloyDecoderRow | Unread> {
  const input = /\binput\s*:?=\s*`([^`]*)`/.exec(body)?.[1];
  if (input === undefined) return { name: `${test}/${name}`, why: 'its input is built at run time (fmt.Sprintf or a table)' };
  const target =
    /Evaluate\(nil, &(\w+)\{\}\)/.exec(body)?.[1] ??
    (() => {
      const variable = /Evaluate\(nil, &(\w+)\)/.exec(body)?.[1];
      return variable ? new RegExp(`var ${variable} (\\w+)`).exec(body)?.[1] : undefined;
    })();
  if (!target) return { name: `${test}/${name}`, why: 'it decodes into no struct the reader can name' };
  const expected = /require\.EqualError\(t, err, (?:`([^`]*)`|"((?:[^"\\]|\\.)*)")\)/.exec(body);
  const want = expected ? (expected[1] ?? JSON.parse(`"${expected[2]}"`)) : /require\.NoError\(t, (?:eval\.Evaluate|err)\b/.test(body) ? 'ok' : undefined;
  if (want === undefined) return { name: `${test}/${name}`, why: 'it expects neither no error nor one error text' };
  const pkg = goPackage([...shared, ...typeDeclarations(body)].map((t) => `package vm_test\n\n${t}\n`));
  const schemas = new Map<string, Record<string, string>>();
  const root = await schemaOf({ load: async () => pkg, schemas }, 'test', target);
  if (root === 'opaque') return { name: `${test}/${name}`, why: `it decodes into ${target}, which is no struct of the file` };
  return { test, name, input, mode: /parseBlock\(/.test(body) ? 'block' : 'file', root, schemas: Object.fromEntries(schemas), want };
}

/**
 * A table-driven test's rows (`tt := []struct{...}{ {name: "...", input: `...`, expectError: ...}, ... }`, run by a
 * loop that decodes each into one struct and checks `require.ErrorContains` or `require.NoError`): each as a case,
 * its error text a part of Alloy's error.
 */
async function tableRows(test: string, body: string, shared: string[]): Promise<(conformance.AlloyDecoderRow | Unread)[] | undefined> {
  const loop = /for _, tc := range tt \{([\s\S]*)$/.exec(body)?.[1];
  if (!loop || !/require\.ErrorContains\(t, err, tc\.expectError\)/.test(loop)) return undefined;
  const entries = body
    .slice(0, body.indexOf('for _, tc := range tt'))
    .split(/\n\t\t\{\n/)
    .slice(1);
  return Promise.all(
    entries.map(async (entry) => {
      const name = /name:\s*"([^"]*)"/.exec(entry)?.[1] ?? '(unnamed)';
      const input = /input:\s*`([^`]*)`/.exec(entry)?.[1];
      const error = /expectError:\s*(?:`([^`]*)`|"([^"]*)")/.exec(entry);
      const synthetic = `input := \`${input ?? ''}\`\n${loop}\n${error ? `require.EqualError(t, err, \`${error[1] ?? error[2]}\`)` : 'require.NoError(t, err)'}`;
      if (input === undefined) return { name: `${test}/${name}`, why: 'its row has no input the reader can read' };
      const r = await row(test, name, { body: synthetic, shared });
      return 'why' in r || !error ? r : { ...r, match: 'contains' as const };
    }),
  );
}

/** The rows of vm_block_test.go, and the cases it could not read. */
export async function alloyDecoderRows(go: string): Promise<{ rows: conformance.AlloyDecoderRow[]; unread: Unread[] }> {
  const rows: conformance.AlloyDecoderRow[] = [];
  const unread: Unread[] = [];
  for (const m of go.matchAll(/^func (Test\w+)\(t \*testing\.T\) \{\n([\s\S]*?)^\}/gm)) {
    const [test, body] = [m[1]!, m[2]!];
    const cases = runs(body);
    const shared = typeDeclarations(cases.length > 0 ? body.slice(0, body.indexOf('\tt.Run(')) : '');
    const table = cases.length === 0 ? await tableRows(test, body, typeDeclarations(body)) : undefined;
    for (const r of table ?? []) ('why' in r ? unread : rows).push(r as never);
    if (table) continue;
    for (const c of cases.length > 0 ? cases : [{ name: test, body }]) {
      const r = await row(test, c.name, { body: c.body, shared });
      if ('why' in r) unread.push(r);
      else rows.push(r);
    }
  }
  return { rows, unread };
}

/**
 * The rows of vm_errors_test.go's `TestVM_ExprErrors`: each input decoded into its struct (a type of the function, or
 * one written inline), against the error text the test expects; a row evaluated in a scope of Go values is not read.
 */
export async function alloyExprErrorRows(go: string): Promise<{ rows: conformance.AlloyDecoderRow[]; unread: Unread[] }> {
  const test = 'TestVM_ExprErrors';
  const body = new RegExp(`^func ${test}\\(t \\*testing\\.T\\) \\{\\n([\\s\\S]*?)^\\}`, 'm').exec(go)?.[1] ?? '';
  const declarations = typeDeclarations(body).flatMap(hoistAnonymousStructs);
  const rows: conformance.AlloyDecoderRow[] = [];
  const unread: Unread[] = [];
  const entries = body
    .slice(body.indexOf('}{') + 2, body.indexOf('for _, tc := range tt'))
    .split(/\n\t\t\{\n/)
    .slice(1);
  for (const [i, entry] of entries.entries()) {
    const name = /name:\s*"([^"]*)"/.exec(entry)?.[1] ?? `row ${i}`;
    const text = (m: RegExpExecArray | null) => (m ? (m[1] ?? JSON.parse(`"${m[2]}"`)) : undefined) as string | undefined;
    const input = text(/input:\s*(?:`([^`]*)`|"((?:[^"\\]|\\.)*)")/.exec(entry));
    const want = text(/expect:\s*(?:`([^`]*)`|"((?:[^"\\]|\\.)*)")/.exec(entry));
    if (/\bscope:/.test(entry)) unread.push({ name: `${test}/${name}`, why: 'it evaluates in a scope of Go values' });
    else if (input === undefined || want === undefined)
      unread.push({ name: `${test}/${name}`, why: 'its row has no input or expectation the reader can read' });
    else {
      const inline = /into:\s*&struct\s*\{\n([\s\S]*?)^\t+\}\{\}/m.exec(entry)?.[1];
      const target = inline === undefined ? /into:\s*&(\w+)\{\}/.exec(entry)?.[1] : `Row${i}`;
      const extra = inline === undefined ? [] : hoistAnonymousStructs(`type Row${i} struct {\n${inline.replace(/^\t+/gm, '\t')}}`);
      const pkg = goPackage([...declarations, ...extra].map((t) => `package vm_test\n\n${t}\n`));
      const schemas = new Map<string, Record<string, string>>();
      const root = target ? await schemaOf({ load: async () => pkg, schemas }, 'test', target) : 'opaque';
      if (root === 'opaque') unread.push({ name: `${test}/${name}`, why: 'it decodes into no struct the reader can name' });
      else rows.push({ test, name, input, mode: 'file', root, schemas: Object.fromEntries(schemas), want });
    }
  }
  return { rows, unread };
}
