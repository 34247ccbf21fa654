/** kube-state-metrics' map of lists as model/command-lines/map-of-lists.ts reads it: each case's answer is LabelsAllowList.Set's own (v2.20.0, built with Go 1.19). */
import { describe, expect, it } from 'vitest';
import { readMapOfLists } from '../../model/command-lines/map-of-lists.ts';

const map = (text: string) => {
  const read = readMapOfLists(text);
  return 'map' in read ? Object.fromEntries(read.map) : read;
};

describe("kube-state-metrics' LabelsAllowList.Set", () => {
  it('reads names and their items, trimmed, the later of a name again starting it afresh', () => {
    expect(map('pods=[app.kubernetes.io/component,app],resource=[blah]')).toEqual({ pods: ['app.kubernetes.io/component', 'app'], resource: ['blah'] });
    expect(map(' pods =[ a , b ],nodes=[*]')).toEqual({ pods: ['a', 'b'], nodes: ['*'] });
    expect(map('pods=[],nodes=[x-*]')).toEqual({ pods: [], nodes: ['x-*'] });
    expect(map('pods=[a],pods=[b]')).toEqual({ pods: ['b'] });
    expect(map('')).toEqual({});
  });

  it('cuts where its characters stand, closing no bracket: an item before any = is the name ""', () => {
    expect(map('pods=[a')).toEqual({ pods: [] });
    expect(map('a]')).toEqual({ '': ['a'] });
    expect(map('x,pods=[a]')).toEqual({ '': ['x'], pods: ['a'] });
    // A later pods= drops the items before it, wildcards included.
    expect(map('pods=[x**,y=[z],pods=[a]')).toEqual({ pods: ['a'], y: ['z'] });
  });

  it('refuses a character its neighbours do not allow, and two wildcards in one item', () => {
    for (const text of [' pods = [a]', 'pods=a', '[a]', ',pods=[a]', 'pods=[a],', 'pods=[a]x', 'pods=[a],,nodes=[b]', 'pods=[a,]', 'a,=[b]', 'pods==[a]'])
      expect(map(text), text).toEqual({ error: 'invalid format, metric=[label1,label2,labeln...],metricN=[]' });
    expect(map('pods=[a**]')).toEqual({ error: 'invalid format, only one wildcard per label allowed' });
  });

  it('reads the wrong neighbours past a character of more bytes than one, and panics past the runes, as the Go loop does', () => {
    // The byte offset of ] is 8, the rune before it at 7 is ] itself: the item runs from é to it.
    expect(map('pods=[é]')).toEqual({ pods: ['é]'] });
    expect(map('é,a')).toEqual({ error: 'runtime error: index out of range [3] with length 3', panics: true });
    expect(map('a,ééé,b')).toEqual({ error: 'runtime error: index out of range [7] with length 7', panics: true });
  });
});
