/**
 * Rook's own pool validation tests (rook/rook pkg/operator/ceph/pool/validate_test.go, `TestValidatePool`), read as
 * data: each `t.Run` block builds a CephBlockPool by assignments to `p.Spec` (Go field names, which the CRD's JSON
 * names follow in lower camel case) and asserts that `validatePool` refuses it or not, and sometimes with which text.
 * Each is held to the gate's port (model/rook/pools.ts) with the repository's CRUSH map, Ceph's default types. A block
 * with a statement the reader does not follow is counted as not read.
 */
import type { Obj } from '../../model/core/dig.ts';
import { poolVerdict } from '../../model/rook/pools.ts';
import { count, countUnread, emptyAgreement, type Agreement, type UpstreamTable } from './agreement.ts';
import { asJson, asManifest, builtinEnvironment, GoParser, GoUnsupported, jsonName, tokenize } from './go-literals.ts';

export interface RookPoolCase {
  name: string;
  spec: Obj;
  place: { name: string; namespace: string };
  refused: boolean;
  /** The error text the test asserts whole (EqualError) or in part (Contains), where it asserts one. */
  text?: { whole: boolean; value: string };
}

const unquote = (s: string): string => JSON.parse(s) as string;

/** A Go literal the tests assign (a number, a bool, a string, a map, a slice of struct literals) as a manifest spells it, or undefined. */
function literal(text: string): unknown {
  try {
    return asManifest(asJson(new GoParser(tokenize(text), builtinEnvironment()).expr()));
  } catch (err) {
    if (err instanceof GoUnsupported) return undefined;
    throw err;
  }
}

/** Sets `value` at the JSON path a Go field path names (`Replicated.Size` is replicated.size). */
function assign(spec: Obj, fields: string[], value: unknown): void {
  let at = spec;
  for (const f of fields.slice(0, -1)) at = (at[jsonName(f)] ??= {}) as Obj;
  at[jsonName(fields.at(-1)!)] = value;
}

/** One block's statements, or why the reader cannot follow it. */
function readBlock(name: string, body: string): RookPoolCase | { unread: string } {
  const header = /p := cephv1\.CephBlockPool\{ObjectMeta: metav1\.ObjectMeta\{([^}]*)\}\}/.exec(body);
  if (!header) return { unread: 'no pool literal of the usual shape' };
  const spec: Obj = {};
  let text: RookPoolCase['text'];
  let refused: boolean | undefined;
  for (const raw of body.slice(header.index + header[0].length).split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('//') || /^err := validatePool\(/.test(line) || /^assert\.Equal\(t, .*p\.Spec/.test(line)) continue;
    const set = /^p\.Spec\.([\w.]+) = (.+)$/.exec(line);
    const whole = /^assert\.EqualError\(t, err, ("(?:[^"\\]|\\.)*")\)$/.exec(line);
    const part = /^assert\.Contains\(t, err\.Error\(\), ("(?:[^"\\]|\\.)*")\)$/.exec(line);
    if (set) {
      const value = literal(set[2]!);
      if (value === undefined) return { unread: `the literal ${set[2]}` };
      assign(spec, set[1]!.split('.'), value);
    } else if (/^assert\.(Error|NotNil)\(t, err\)$/.test(line)) refused = true;
    else if (/^assert\.(NoError|Nil)\(t, err\)$/.test(line)) refused = false;
    else if (whole || part) text = { whole: Boolean(whole), value: unquote((whole ?? part)![1]!) };
    else return { unread: `the statement ${line}` };
  }
  if (refused === undefined) return { unread: 'no assertion on the error' };
  const place = {
    name: /\bName: "([^"]*)"/.test(header[1]!) ? /\bName: "([^"]*)"/.exec(header[1]!)![1]! : '',
    namespace: /\bNamespace:/.test(header[1]!) ? 'myns' : '',
  };
  return { name, spec, place, refused, ...(text ? { text } : {}) };
}

/** Every block of TestValidatePool, read or said unread. */
export function rookPoolCases(testSource: string): UpstreamTable<RookPoolCase> {
  const body = /func TestValidatePool\(t \*testing\.T\) \{([\s\S]*?)\n\}\n/.exec(testSource)?.[1] ?? '';
  const table: UpstreamTable<RookPoolCase> = { cases: [], unread: [] };
  for (const m of body.matchAll(/t\.Run\(("(?:[^"\\]|\\.)*"), func\(t \*testing\.T\) \{([\s\S]*?)\n\t\}\)/g)) {
    const name = unquote(m[1]!);
    const read = readBlock(name, m[2]!);
    if ('unread' in read) table.unread.push({ name, why: read.unread });
    else table.cases.push(read);
  }
  return table;
}

/** How many blocks the gate refuses or accepts as Rook does, with the same text where the test asserts one. */
export function rookPoolAgreement(table: UpstreamTable<RookPoolCase>): Agreement {
  const a = emptyAgreement();
  for (const c of table.cases) {
    const verdict = poolVerdict(c.spec, { ...c.place, stretch: false });
    const message = verdict && 'refused' in verdict ? verdict.refused.message : undefined;
    const textOk = !c.text || (message !== undefined && (c.text.whole ? message === c.text.value : message.includes(c.text.value)));
    count(a, {
      group: 'TestValidatePool',
      ok: (message !== undefined) === c.refused && textOk,
      file: `TestValidatePool/${c.name}`,
      why: `the gate ${message === undefined ? (verdict ? 'does not judge it' : 'accepts it') : `refuses it (${message})`}, Rook ${c.refused ? `refuses it${c.text ? ` (${c.text.value})` : ''}` : 'accepts it'}`,
    });
  }
  countUnread(a, table.unread);
  return a;
}
