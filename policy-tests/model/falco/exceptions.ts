/**
 * A rule's `exceptions` as Falco 0.44 reads, checks and compiles them, each refusal an error of the whole rules file:
 * - the reader (rule_loader_reader.cpp read_rule_exceptions): a sequence of mappings, each with a name, and fields
 *   (optional only where the item appends), comps and values, each a non-empty scalar or a sequence of them;
 * - the collector (rule_loader_collector.cpp validate_exception_info, append): a defined rule's exception has fields;
 *   a list of fields takes a list of comps of its length (`=` each where none is given), each an operator of the filter
 *   grammar or a string operator with a modifier (`startswith oneof`); one field takes one comp, `in` where none is
 *   given, of in, pmatch, intersects or a string operator with a modifier; an appended exception of a new name has
 *   fields and values, one of a name the rule has gives values only;
 * - the compiler (rule_loader_compiler.cpp build_rule_exception_infos): the `and not (...)` it appends to the rule's
 *   condition, each value as it is written into that text, for the condition parser and the fields check to read.
 * A replace (`override: {exceptions: replace}`) is checked as a definition: Falco takes it unchecked and then compiles it.
 */
import type { Path } from '../core/positions.ts';
import { scalarText } from '../core/text.ts';
import { requiredScalar, yamlCppTrue, type ReaderProblem } from './reader.ts';
import type { TuningItem } from './tuning.ts';
import { parseCondition } from './expr.ts';
import { fieldProblems } from './policy.ts';
import { fileLists, quoteItem, resolveLists, type FalcoList } from './lists.ts';

/** One of fields, comps or a value as Falco decodes it: a scalar's text, a list, or neither (a null or a mapping). */
type Entry = { list: false; item: string } | { list: true; items: Entry[] };

interface RuleException {
  name: string;
  fields?: Entry;
  comps?: Entry;
  values?: Entry[];
  /** The exception's place among the item's exceptions. */
  index: number;
}

/** A compiled exception: the clause Falco appends to its rule's condition, or the refusal that stops it. */
export interface CompiledException {
  /** Where the exception is in its item. */
  path: Path;
  /** The text Falco appends (`(proc.name in (a, b))`), empty where it has no values; undefined where it is refused. */
  clause?: string;
  /** The fields it compares, as written (`proc.name`, `tolower(proc.name)`). */
  fields: string[];
  problems: ReaderProblem[];
}

const MODIFIERS = ['oneof', 'anyof', 'allof'];
/** The string operators a modifier may follow (rule_loader_cmpop.h cmpop_supports_modifier). */
const MODIFIABLE = ['=', '==', '!=', 'contains', 'icontains', 'bcontains', 'startswith', 'bstartswith', 'endswith', 'glob', 'iglob', 'regex'];
/** libsinsp's parser::supported_operators(): unary, numeric, string and list operators. */
const OPERATORS = ['exists', '<=', '<', '>=', '>', ...MODIFIABLE, 'intersects', 'in', 'pmatch'];
const LIST_OPERATORS = ['intersects', 'in', 'pmatch'];

const isModified = (op: string): boolean => {
  const m = /^(\S+)\s+(\S+)$/.exec(op);
  return m !== null && MODIFIABLE.includes(m[1]!) && MODIFIERS.includes(m[2]!);
};
const isValid = (e: Entry | undefined): e is Entry => e !== undefined && (e.list ? e.items.length > 0 : e.item !== '');
const text = (e: Entry): string => (e.list ? '' : e.item);

/** decode_exception_info_entry: a scalar (non-empty) or a sequence of entries; a null or a mapping decodes to nothing. */
function decode(value: unknown, path: Path, problems: ReaderProblem[]): Entry {
  if (Array.isArray(value)) return { list: true, items: value.map((v, i) => decode(v, [...path, i], problems)) };
  if (value === null || typeof value === 'object') return { list: false, item: '' };
  const item = scalarText(value);
  if (item === '') problems.push({ path, message: 'Value must be non-empty' });
  return { list: false, item };
}

/** read_rule_exceptions: each exception of the item, or the reader's refusals. `append` makes fields optional. */
function readExceptions(raw: Record<string, unknown>, append: boolean, problems: ReaderProblem[]): RuleException[] {
  const all = raw.exceptions;
  if (all === undefined || all === null) return [];
  if (!Array.isArray(all)) {
    problems.push({ path: ['exceptions'], message: 'Rule exceptions must be a sequence' });
    return [];
  }
  return all.flatMap((ex: unknown, index): RuleException[] => {
    const at = ['exceptions', index];
    if (ex === null || typeof ex !== 'object' || Array.isArray(ex)) {
      problems.push({ path: at, message: 'Rule exception must be a mapping' });
      return [];
    }
    const e = ex as Record<string, unknown>;
    const nameProblem = requiredScalar(e, 'name');
    if (nameProblem) problems.push({ path: 'name' in e ? [...at, 'name'] : at, message: nameProblem });
    if (!('fields' in e) && !append) problems.push({ path: at, message: "Item has no mapping for key 'fields'" });
    let values: Entry[] | undefined;
    if ('values' in e) {
      if (Array.isArray(e.values)) values = e.values.map((v, i) => decode(v, [...at, 'values', i], problems));
      else problems.push({ path: [...at, 'values'], message: 'Rule exception values must be a sequence' });
    }
    return [
      {
        name: nameProblem ? '' : scalarText(e.name),
        index,
        values,
        ...('fields' in e ? { fields: decode(e.fields, [...at, 'fields'], problems) } : {}),
        ...('comps' in e ? { comps: decode(e.comps, [...at, 'comps'], problems) } : {}),
      },
    ];
  });
}

/** validate_exception_info: the comps an exception compiles with (its own, or the defaults), or the refusal. */
function validComps(ex: RuleException, fields: Entry): { comps?: Entry; problem?: string } {
  const given = isValid(ex.comps) ? ex.comps : undefined;
  if (fields.list) {
    const comps = given ?? { list: true, items: fields.items.map((): Entry => ({ list: false, item: '=' })) };
    const items = comps.list ? comps.items : [];
    if (items.length !== fields.items.length) return { problem: 'Fields and comps lists must have equal length' };
    const normal = items.map((c) => text(c).trim());
    const bad = normal.find((op) => !OPERATORS.includes(op) && !isModified(op));
    if (bad !== undefined) return { problem: `'${bad}' is not a supported comparison operator` };
    return { comps: { list: true, items: normal.map((item) => ({ list: false, item })) } };
  }
  const comps = given ?? { list: false, item: 'in' };
  if (comps.list) return { problem: 'Fields and comps must both be strings' };
  const op = comps.item.trim();
  if (!LIST_OPERATORS.includes(op) && !isModified(op))
    return { problem: 'When fields is a single value, comps must be one of (in, pmatch, intersects) or a modifier operator (e.g. startswith oneof)' };
  return { comps: { list: false, item: op } };
}

/** paren_item: a list operator's value in parentheses. */
const parenthesized = (e: string): string => (e[0] === '(' ? e : `(${e})`);
const forList = (op: string): boolean => LIST_OPERATORS.includes(op) || isModified(op);

/** build_rule_exception_infos: the clause an exception adds to its rule's condition, or the refusal. */
function clauseOf(fields: Entry, comps: Entry, values: readonly Entry[]): { clause?: string; problem?: string } {
  if (!fields.list) {
    if (values.some((v) => v.list)) return { problem: 'Expected values array to contain a list of strings' };
    return { clause: values.length ? `(${fields.item} ${text(comps)} (${values.map((v) => quoteItem(text(v))).join(', ')}))` : '' };
  }
  const ops = comps.list ? comps.items.map(text) : [];
  const alternatives: string[] = [];
  for (const value of values) {
    const items = value.list ? value.items : [];
    if (items.length !== fields.items.length) return { problem: 'Fields and values lists must have equal length' };
    const terms = fields.items.map((field, k) => {
      const v = items[k]!;
      const rhs = v.list ? `(${v.items.map((i) => quoteItem(text(i))).join(', ')})` : forList(ops[k]!) ? parenthesized(v.item) : quoteItem(v.item);
      return ` ${text(field)} ${ops[k]} ${rhs}`;
    });
    alternatives.push(`(${terms.join(' and ')})`);
  }
  return { clause: alternatives.length ? `(${alternatives.join(' or ')})` : '' };
}

/** One exception's checks and clause, where the rule defines it (or replaces its exceptions). */
function compiled(ex: RuleException, values: readonly Entry[], fields: Entry | undefined, comps?: Entry): CompiledException {
  const path = ['exceptions', ex.index];
  if (!isValid(fields)) return { path, fields: [], problems: [{ path, message: 'Rule exception item must have fields property with a list of fields' }] };
  const names = fields.list ? fields.items.map(text) : [fields.item];
  const refused = (at: string, message: string): CompiledException => ({ path, fields: names, problems: [{ path: [...path, at], message }] });
  const valid = validComps({ ...ex, comps: comps ?? ex.comps }, fields);
  if (valid.problem) return refused('comps', valid.problem);
  const built = clauseOf(fields, valid.comps!, values);
  return built.problem ? refused('values', built.problem) : { path, fields: names, clause: built.clause, problems: [] };
}

/** How an item takes its exceptions: defines them, appends to its rule's, or replaces them; undefined where Falco does not read them (an override that does not name them, or names no operation the reader knows). */
function modeOf(item: TuningItem): 'define' | 'append' | 'replace' | undefined {
  if (item.override) {
    const operation = item.override.exceptions;
    return operation === 'append' || operation === 'replace' ? operation : undefined;
  }
  if (yamlCppTrue(item.raw.append)) return 'append';
  // A rule that sets none of condition, output, desc and priority only enables or disables an earlier one: its exceptions are not read.
  return ['condition', 'output', 'desc', 'priority'].some((k) => k in item.raw) ? 'define' : undefined;
}

/**
 * Every exception of a rules file's rules, in order, each checked and compiled as Falco does: a rule's exceptions are
 * kept by name, so that an append of values to one the file defined compiles with its fields and comps. An append to a
 * rule the file does not define (an upstream one) is checked only where it names fields: a values-only append to an
 * upstream exception is not judged.
 */
export function ruleExceptions(items: readonly TuningItem[]): Map<TuningItem, CompiledException[]> {
  const kept = new Map<string, RuleException[]>();
  const out = new Map<TuningItem, CompiledException[]>();
  for (const item of items.filter((i) => i.type === 'rule' && 'exceptions' in i.raw)) {
    const mode = modeOf(item);
    if (mode === undefined) continue;
    const problems: ReaderProblem[] = [];
    const read = readExceptions(item.raw, mode === 'append', problems);
    const results: CompiledException[] = problems.length ? [{ path: ['exceptions'], fields: [], problems }] : [];
    const own = kept.get(item.name);
    for (const ex of problems.length ? [] : read) {
      const earlier = mode === 'append' ? own?.find((e) => e.name === ex.name) : undefined;
      const path = ['exceptions', ex.index];
      if (earlier) {
        const extra = ex.fields ? 'fields' : ex.comps ? 'comps' : undefined;
        results.push(
          extra
            ? { path, fields: [], problems: [{ path: [...path, extra], message: `Can not append exception ${extra} to existing exception, only values` }] }
            : compiled(earlier, ex.values ?? [], earlier.fields, earlier.comps),
        );
        earlier.values = [...(earlier.values ?? []), ...(ex.values ?? [])];
      } else if (mode === 'append' && !own && !ex.fields) continue;
      else if (mode === 'append' && (ex.values ?? []).length === 0 && ex.fields)
        results.push({ path, fields: [], problems: [{ path, message: 'Rule exception must have values property with a list of values' }] });
      else results.push(compiled(ex, ex.values ?? [], ex.fields));
    }
    // What the rule's exceptions are after the item: its own where it defines or replaces them, the earlier ones and
    // the new names where it appends to a rule of the file; an upstream rule's are not known.
    if (mode !== 'append') kept.set(item.name, read);
    else own?.push(...read.filter((e) => !own.some((o) => o.name === e.name)));
    out.set(item, results);
  }
  return out;
}

/**
 * Every refusal of a rules file's exceptions, each at its place in its item: the reader's and the collector's, a field
 * the sensor does not know (is_valid_lhs_field: the field, or the transformer around it, read as `<field> exists`), and
 * a clause that does not parse or reads a field the sensor lacks where Falco compiles it into its rule's condition.
 * `fields` are the sensor's fields (fieldProblems), undefined where they are not known.
 */
export function exceptionRefusals(
  items: readonly TuningItem[],
  fields: ReadonlyMap<string, 'none' | 'allowed' | 'required'> | undefined,
  lists: readonly FalcoList[] = fileLists(items),
): { item: TuningItem; path: Path; message: string }[] {
  const out: { item: TuningItem; path: Path; message: string }[] = [];
  for (const [item, exceptions] of ruleExceptions(items))
    for (const ex of exceptions) {
      const found = new Map<string, Path>(ex.problems.map((p) => [p.message, p.path]));
      for (const field of ex.clause === undefined ? [] : ex.fields) {
        const lhs = safely(() => parseCondition(`${field} exists`));
        if (lhs instanceof Error) found.set(`'${field}' is not a supported filter field: ${lhs.message}`, [...ex.path, 'fields']);
        else for (const problem of fieldProblems(lhs, fields)) found.set(`'${field}' is not a supported filter field: ${problem}`, [...ex.path, 'fields']);
      }
      if (ex.clause && found.size === 0) {
        const clause = safely(() => parseCondition(resolveLists(ex.clause!, lists)));
        if (clause instanceof Error)
          found.set(`the condition Falco compiles for the exception, ${JSON.stringify(ex.clause)}, does not parse: ${clause.message}`, [...ex.path, 'values']);
        else
          for (const problem of fieldProblems(clause, fields))
            found.set(`the condition Falco compiles for the exception reads ${problem}`, [...ex.path, 'values']);
      }
      for (const [message, path] of found) out.push({ item, path, message });
    }
  return out;
}

function safely<T>(parse: () => T): T | Error {
  try {
    return parse();
  } catch (err) {
    return err as Error;
  }
}
