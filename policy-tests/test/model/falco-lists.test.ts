/** Falco's lists as its compiler writes them into a condition's text (rule_loader_compiler.cpp resolve_list, compile_list_infos). */
import { describe, expect, it } from 'vitest';
import { fileLists, resolveLists, unreadableLists } from '../../model/falco/lists.ts';
import { parseTuning } from '../../model/falco/tuning.ts';

const items = (yaml: string) => parseTuning('rules.yaml', 'rules.yaml', yaml).items;

describe("Falco's lists", () => {
  it("writes a list's items in place of each whole occurrence of its name, quoting an item with a blank", () => {
    const lists = [{ name: 'shells', items: ['bash', 'my sh'] }];
    expect(resolveLists('proc.name in (shells)', lists)).toBe('proc.name in ( bash, "my sh" )');
    expect(resolveLists('proc.name in (a, shells,b) and x = shells2', lists)).toBe('proc.name in (a, bash, "my sh" ,b) and x = shells2');
    expect(resolveLists('proc.name=shells', lists)).toBe('proc.name= bash, "my sh" ');
    // A name Falco's grammar could not read is read through: it is text.
    expect(resolveLists('evt.type in (test list)', [{ name: 'test list', items: ['open', 'openat'] }])).toBe('evt.type in ( open, openat )');
  });

  it('takes a comma with an empty list, from the left or else the right', () => {
    const empty = [{ name: 'none', items: [] }];
    expect(resolveLists('proc.name in (a, none)', empty)).toBe('proc.name in (a  )');
    expect(resolveLists('proc.name in (none, a)', empty)).toBe('proc.name in (   a)');
  });

  it('keeps each list after its appends, an item naming an earlier list replaced by its items', () => {
    const lists = fileLists(
      items(
        '- list: a\n  items: [x, y]\n- list: b\n  items: [a, z]\n- list: a\n  items: [w]\n  override:\n    items: append\n- list: c\n  items: [q]\n- list: c\n  items: [r]\n',
      ),
    );
    expect(lists).toEqual([
      { name: 'a', items: ['x', 'y', 'w'] },
      { name: 'b', items: ['x', 'y', 'w', 'z'] },
      { name: 'c', items: ['r'] },
    ]);
  });

  it('refuses a list whose items do not parse where a condition names it, or where it appends to an upstream list', () => {
    const upstream = new Set(['shell_binaries']);
    expect(unreadableLists(items('- list: shell_binaries\n  items: [fish, "(sd-pam)"]\n  override:\n    items: append\n'), upstream)).toEqual([
      {
        item: expect.anything(),
        message: expect.stringMatching(/^its items, written into a condition as Falco writes them \("evt.type in \(fish, \(sd-pam\)\)"\), do not parse/),
      },
    ]);
    // Unnamed, it is never written into a condition, and Falco loads it; quoted, it reads.
    expect(unreadableLists(items('- list: mine\n  items: ["(sd-pam)"]\n'), upstream)).toEqual([]);
    expect(unreadableLists(items('- list: mine\n  items: [\'"(sd-pam)"\']\n- macro: m\n  condition: proc.name in (mine)\n'), upstream)).toEqual([]);
    expect(unreadableLists(items("- list: mine\n  items: [it's]\n- macro: m\n  condition: proc.name in (mine)\n"), upstream)).toHaveLength(1);
  });
});
