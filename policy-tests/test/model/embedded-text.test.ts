/**
 * A place inside a text a YAML string holds, found in the file: each file below is parsed as the gate parses it
 * (both readers: the fast one, and the `yaml` library where a YAML 1.1 scalar elsewhere sends the file to it), and a
 * marker's place in the string must map onto the marker in the file.
 */
import { describe, expect, it } from 'vitest';
import { parseManifest } from '../../model/core/manifest.ts';
import { embeddedPlacer } from '../../model/yaml/embedded-text.ts';

const MARK = 'MARK';

/** The marker's place in `text`, 1-based. */
function placeOf(text: string): { line: number; col: number } {
  const lines = text.split('\n');
  const line = lines.findIndex((l) => l.includes(MARK));
  return { line: line + 1, col: lines[line]!.indexOf(MARK) + 1 };
}

const FILES: Record<string, string> = {
  'a literal block': 'data:\n  rules: |\n    groups:\n      - MARK: x\n',
  'a literal block with a comment on its header and a blank first line': 'data:\n  rules: |  # rules\n\n        deep:\n          MARK: x\n',
  'a folded block with an indentation indicator': 'data:\n  rules: >2\n    MARK\n',
  'a literal block kept (|+) in a list': 'data:\n  - |+\n      a: 1\n      b: MARK\n',
  'a double-quoted scalar': 'data:\n  rules: "a: 1, MARK: 2"\n',
  'a single-quoted scalar': "data:\n  rules: 'b: MARK'\n",
  'a plain scalar': 'data:\n  rules: MARK here\n',
};

const HEADERS: Record<string, string> = { 'a literal block kept (|+) in a list': 'data.0' };

describe('a place inside a string, in the file that holds it', () => {
  for (const [name, body] of Object.entries(FILES))
    for (const reader of ['fast', 'yaml library'] as const)
      it(`${name} (${reader} reader)`, () => {
        // A YAML 1.1 boolean elsewhere in the file is read by the `yaml` library, never by the fast reader.
        const text = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels:\n    on: ${reader === 'fast' ? '"yes"' : 'yes'}\n${body}`;
        const [resource] = parseManifest('f.yaml', text).resources;
        const path = (HEADERS[name] ?? 'data.rules').split('.').map((s) => (/^\d+$/.test(s) ? Number(s) : s));
        const value = path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], resource!.object) as string;
        const at = embeddedPlacer(text, resource!.positions.at(path, 'value'))(placeOf(value));
        expect(text.split('\n')[at.line - 1]!.slice(at.col - 1)).toMatch(new RegExp(`^${MARK}`));
      });

  it("past a flow scalar's first line, at the scalar's start: its lines are folded", () => {
    const text = 'k: "a\n  MARK"\n';
    expect(embeddedPlacer(text, { line: 1, col: 4 })({ line: 2, col: 1 })).toEqual({ line: 1, col: 4 });
  });

  it('without the file, a block whose indentation is unknown', () => {
    expect(embeddedPlacer(undefined, { line: 3, col: 10 })({ line: 2, col: 5 })).toEqual({ line: 5, col: 5 });
  });
});
