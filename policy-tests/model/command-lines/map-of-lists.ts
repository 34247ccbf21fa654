/**
 * kube-state-metrics' map of lists (`pods=[app,team],nodes=[*]`), as its LabelsAllowList.Set (v2.20.0,
 * pkg/options/types.go) reads `--metric-labels-allowlist` and `--metric-annotations-allowlist`: one pass over the
 * text, each `=`, `[`, `]` and `,` judged by the characters either side of it, a name before each `=` and a list
 * item before each `]` or `,`. It checks no bracket is closed: it cuts the text where those characters stand, and
 * an item met before any `=` belongs to the name "" (which no resource has).
 *
 * The Go loop takes a character's byte offset as its index into the text's runes: past a character of more than
 * one byte it reads the wrong neighbours, and past the end of the runes it panics (exit 2). Ported as written.
 */

/** The names and their items, or why Set refuses the text (`panics`: the Go runtime stops the program). */
export type MapOfLists = { map: Map<string, string[]> } | { error: string; panics?: true };

import { goTrimSpace } from '../core/text.ts';

const FORMAT = 'invalid format, metric=[label1,label2,labeln...],metricN=[]';
const WILDCARDS = 'invalid format, only one wildcard per label allowed';
const UTF8 = new TextEncoder();

export function readMapOfLists(value: string): MapOfLists {
  // Code points, as Go's []rune(value) makes them (not graphemes: Go does not join them either).
  const runes = Array.from(value);
  const bytes = UTF8.encode(value).length;
  const map = new Map<string, string[]>();
  const item = (from: number, to: number) => goTrimSpace(runes.slice(from, to).join(''));
  const add = (name: string, text: string) => map.set(name, [...(map.get(name) ?? []), text]);
  let name = '';
  let first = 0;
  let offset = 0;
  for (const v of runes) {
    const i = offset;
    offset += UTF8.encode(v).length;
    // value[i+1] as the Go code reads it: the rune at the byte offset's index, past the runes a panic.
    if (i + 1 < bytes && i + 1 >= runes.length) return { error: `runtime error: index out of range [${i + 1}] with length ${runes.length}`, panics: true };
    if (i - 1 >= runes.length) return { error: `runtime error: index out of range [${i - 1}] with length ${runes.length}`, panics: true };
    const next = i + 1 === bytes ? undefined : runes[i + 1];
    const previous = i - 1 >= 0 ? runes[i - 1] : v;
    if (v === '=') {
      if (previous === ',' || next !== '[') return { error: FORMAT };
      name = item(first, i);
      map.set(name, []);
      first = i + 1;
    } else if (v === '[') {
      if (previous !== '=') return { error: FORMAT };
      first = i + 1;
    } else if (v === ']') {
      if (next !== undefined && next !== ',') return { error: FORMAT };
      if (previous !== '[') add(name, item(first, i));
      first = i + 1;
    } else if (v === ',') {
      if (previous === v || next === undefined || next === ']') return { error: FORMAT };
      if (previous !== ']') add(name, item(first, i));
      first = i + 1;
    }
  }
  if ([...map.values()].some((labels) => labels.some((label) => label.split('*').length - 1 > 1))) return { error: WILDCARDS };
  return { map };
}
