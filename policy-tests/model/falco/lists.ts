/**
 * Falco's lists as its compiler uses them (rule_loader_compiler.cpp, Falco 0.44): before a condition is parsed, every
 * list's name is replaced in its text by the list's items (resolve_list), each quoted where it has a blank, so a list
 * is text, not a node of the grammar. A list's items are its own after every append, an item naming a list defined
 * before it replaced by that list's items (compile_list_infos). A list name Falco's grammar could not read (`my list`)
 * is read through, and an item the grammar cannot read (`it's`) breaks every condition that names its list.
 */
import { scalarText } from '../core/text.ts';
import { updates } from './reader.ts';
import { parseCondition } from './expr.ts';
import type { TuningItem } from './tuning.ts';

export interface FalcoList {
  name: string;
  items: readonly string[];
}

/** quote_item: an item with a blank, not already quoted, in double quotes (escaping is not read: Falco's own todo). */
export const quoteItem = (e: string): string => (e.includes(' ') && e[0] !== '"' && e[0] !== "'" ? `"${e}"` : e);

/**
 * The lists of a rules file as the compiler holds them, in the order of their first definition: a definition sets the
 * items, an append adds to them; an item that names a list first defined before the list's last definition or append
 * is replaced by that list's items as written (one level, as compile_list_infos reads them).
 */
export function fileLists(items: readonly TuningItem[]): FalcoList[] {
  const lists = new Map<string, { first: number; last: number; items: string[] }>();
  for (const item of items) {
    if (item.type !== 'list' || !Array.isArray(item.raw.items)) continue;
    const written = item.raw.items.map((i: unknown) => scalarText(i));
    const known = lists.get(item.name);
    if (known && updates(item) === 'append') known.items.push(...written);
    else lists.set(item.name, { first: known?.first ?? item.index, last: item.index, items: written });
    lists.get(item.name)!.last = item.index;
  }
  return [...lists].map(([name, list]) => ({
    name,
    items: list.items.flatMap((i) => {
      const ref = lists.get(i);
      return ref && ref.first < list.last ? ref.items : [i];
    }),
  }));
}

const BLANKS = ' \t\n\r';
const DELIMS = `${BLANKS}(),=`;

/** resolve_list: the condition with each whole occurrence of the list's name (between delimiters) replaced by its items. */
function resolveList(condition: string, list: FalcoList): string {
  let cnd = condition;
  let start = cnd.indexOf(list.name);
  while (start !== -1) {
    let end = start + list.name.length;
    if ((start === 0 || DELIMS.includes(cnd[start - 1]!)) && (end >= cnd.length || DELIMS.includes(cnd[end]!))) {
      while (start > 0 && BLANKS.includes(cnd[start - 1]!)) start--;
      while (end < cnd.length && BLANKS.includes(cnd[end]!)) end++;
      const sub = list.items.map(quoteItem).join(', ');
      // An empty list takes a comma with it, from the left or else the right.
      if (sub === '') {
        if (start > 0 && cnd[start - 1] === ',') start--;
        else if (end < cnd.length && cnd[end] === ',') end++;
      }
      cnd = `${start > 0 ? `${cnd.slice(0, start)} ` : ''}${sub} ${cnd.slice(end)}`;
      start += sub.length + 1;
    }
    start = cnd.indexOf(list.name, start + 1);
  }
  return cnd;
}

/** The condition as Falco parses it: every list of `lists` written into it, in their order (parse_condition). */
export function resolveLists(condition: string, lists: readonly FalcoList[]): string {
  return lists.reduce((cnd, list) => (list.name === '' ? cnd : resolveList(cnd, list)), condition);
}

/**
 * Each list of the file whose items, written into a condition as Falco writes them (`x in (<items>)`), do not parse
 * there, with the parser's words: where a condition of the file names it, or it appends to an upstream list (whose
 * rules name it). A list nothing names is never written into a condition, and Falco loads it.
 */
export function unreadableLists(
  items: readonly TuningItem[],
  upstreamLists: ReadonlySet<string>,
  lists: readonly FalcoList[] = fileLists(items),
): { item: TuningItem; message: string }[] {
  const conditions = items.flatMap((i) => (i.condition ? [i.condition] : []));
  const out: { item: TuningItem; message: string }[] = [];
  for (const item of items) {
    const list = lists.find((l) => l.name === item.name);
    if (item.type !== 'list' || !list || !Array.isArray(item.raw.items)) continue;
    const named = (upstreamLists.has(item.name) && updates(item) === 'append') || conditions.some((c) => resolveList(c, list) !== c);
    const own = item.raw.items.map((i: unknown) => quoteItem(scalarText(i)));
    const text = `evt.type in (${own.join(', ')})`;
    try {
      if (named) parseCondition(text);
    } catch (err) {
      out.push({
        item,
        message: `its items, written into a condition as Falco writes them (${JSON.stringify(text)}), do not parse: ${(err as Error).message}`,
      });
    }
  }
  return out;
}
