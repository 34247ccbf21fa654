/**
 * Falco's own cases of its rules loader (falcosecurity/falco unit_tests/engine/test_rule_loader.cpp), held to the
 * gate's reading of a rules file (model/falco/reader.ts and exceptions.ts, with the condition port and the macro scope):
 * each test's rules file that Falco loads (`ASSERT_TRUE(load_rules(...))`) draws no refusal from the gate, and each it
 * refuses (`ASSERT_FALSE`) draws one where the refusal is one the gate reads (the reader's, an exception's shape or
 * operators, an engine version, a condition that does not parse, an undefined macro); a refusal of another kind (a field the engine lacks,
 * an output format) is
 * counted apart, as not judged, never as agreement. A test whose rules file is not one raw literal is counted apart too.
 */
import { parseTuning } from '../../model/falco/tuning.ts';
import { macroVisible, orphanUpdates, readerProblems, undefinedMacros, updates } from '../../model/falco/reader.ts';
import type { TuningItem } from '../../model/falco/tuning.ts';
import { parseAppend, parseCondition, UPSTREAM } from '../../model/falco/expr.ts';
import { exceptionRefusals } from '../../model/falco/exceptions.ts';
import { fileLists, resolveLists } from '../../model/falco/lists.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';

export interface FalcoLoaderCase {
  test: string;
  rules: string;
  loads: boolean;
  /** The messages the test holds the load's result to (check_error_message). */
  messages: string[];
}

/** Every test of the file with one rules literal and one verdict on loading it, and those read apart. */
export function falcoLoaderCases(src: string): { cases: FalcoLoaderCase[]; unread: { test: string; why: string }[] } {
  const cases: FalcoLoaderCase[] = [];
  const unread: { test: string; why: string }[] = [];
  const heads = [...src.matchAll(/TEST_F\(\s*\w+,\s*(\w+)\s*\)/g)];
  // The rules files a test builds on (`s_exception_values_rule_base + R"END(...)END"`), by name.
  const bases = new Map([...src.matchAll(/std::string (\w+) = R"END\(([\s\S]*?)\)END";/g)].map((m) => [m[1]!, m[2]!]));
  heads.forEach((head, i) => {
    const end = src.indexOf('\n}', head.index);
    const body = src.slice(head.index, Math.min(end < 0 ? src.length : end, heads[i + 1]?.index ?? src.length));
    const literals = [...body.matchAll(/(?:(\w+) \+ )?R"END\(([\s\S]*?)\)END"/g)].map((m) => (m[1] ? (bases.get(m[1]) ?? '') : '') + m[2]!);
    const verdicts = [...body.matchAll(/(?:ASSERT|EXPECT)_(TRUE|FALSE)\(\s*load_rules\(/g)];
    if (literals.length !== 1 || verdicts.length !== 1) {
      unread.push({ test: head[1]!, why: `${literals.length} rules literals and ${verdicts.length} verdicts on loading` });
      return;
    }
    const messages = [...body.matchAll(/check_error_message\(\s*"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, '$1'));
    cases.push({ test: head[1]!, rules: literals[0]!, loads: verdicts[0]![1] === 'TRUE', messages });
  });
  return { cases, unread };
}

/** What the gate refuses of a rules file loaded alone, as Falco reads it: the first refusal, or undefined. */
export function loaderRefusal(rules: string): string | undefined {
  const file = parseTuning('rules.yaml', 'rules.yaml', rules);
  if (file.errors.length) return file.errors[0]!.message;
  const orphan = orphanUpdates(file.items, { rules: new Set(), macros: new Set(), lists: new Set() })[0];
  if (orphan) return orphan.message;
  // Falco parses a macro's condition as its last definition leaves it: one a later definition replaces is never read.
  const replaced = (item: TuningItem) =>
    item.type === 'macro' &&
    file.items.some(
      (later) =>
        later.index > item.index && later.type === 'macro' && later.name === item.name && readerProblems(later).length === 0 && updates(later) === undefined,
    );
  const exceptions = exceptionRefusals(file.items, undefined);
  const lists = fileLists(file.items);
  for (const item of file.items) {
    const problem = readerProblems(item)[0] ?? exceptions.find((e) => e.item === item);
    if (problem) return problem.message;
    if (!item.condition || replaced(item)) continue;
    try {
      const text = resolveLists(item.condition, lists);
      const expr = item.override?.condition === 'append' || item.raw.append === true ? parseAppend(text) : parseCondition(text);
      const visible = macroVisible({ upstream: new Set(), items: file.items, others: [], at: item });
      const undefinedName = undefinedMacros(expr, visible, UPSTREAM)[0];
      if (undefinedName) return `Undefined macro '${undefinedName}' used in filter.`;
    } catch (err) {
      return (err as Error).message;
    }
  }
  return undefined;
}

/** The refusals the gate reads, by the words of Falco's message. */
const READ_REFUSALS =
  /no mapping for key|is empty|non-empty|not a scalar|Invalid priority|decode|override|cannot be (appended|replaced)|is not defined|Unexpected key|Undefined macro|unexpected token|expected a|comparison operator|comps must|lists must have equal length|exception|engine version/i;

/** Each case through the gate's reading, held to Falco's verdict. */
export function falcoLoaderAgreement(read: ReturnType<typeof falcoLoaderCases>): Agreement {
  const a = emptyAgreement();
  for (const c of read.cases) {
    const refusal = loaderRefusal(c.rules);
    const read = c.messages.length === 0 || c.messages.some((m) => READ_REFUSALS.test(m));
    const group = c.loads ? 'loads' : read ? 'refused' : 'refused for what the gate does not read';
    const ok = c.loads ? refusal === undefined : refusal !== undefined;
    const verdict = refusal === undefined ? 'loads it' : `refuses it (${refusal})`;
    count(a, {
      group,
      ok,
      file: c.test,
      why: `the gate ${verdict}; Falco ${c.loads ? 'loads it' : `refuses it (${c.messages.join('; ') || 'no message named'})`}`,
    });
  }
  for (const u of read.unread) count(a, { group: 'not read', ok: false, file: u.test, why: `not read: ${u.why}` });
  return a;
}
