/**
 * Where a place inside a text a YAML string holds (a ConfigMap's dashboard or rules file, an Application's
 * `helm.values`) stands in the file that holds the string, so a finding on the inner text lands on the line and column
 * a person wrote. A block scalar (`key: |`) holds its text from the line after its header, each line after the
 * block's indentation; a quoted or plain scalar starts where it stands, after its opening quote (a place past its first
 * line is said at its start: its lines are folded).
 */
import type { LinePos } from '../core/positions.ts';

/**
 * Maps a place in the string to its place in the file. `header` is where the scalar's value starts (its `|` or `>` for
 * a block); `fileText` the file's text, without which the string is taken for a block whose indentation is unknown.
 */
export function embeddedPlacer(fileText: string | undefined, header: LinePos): (p: LinePos) => LinePos {
  const lines = fileText?.split('\n');
  const start = lines?.[header.line - 1]?.slice(header.col - 1);
  if (start === undefined || /^[|>]/.test(start)) {
    // The block's indentation is its first line's that is not blank (YAML's auto-detected indentation).
    const first = lines?.slice(header.line).find((l) => l.trim() !== '') ?? '';
    const indent = first.length - first.trimStart().length;
    return (p) => ({ line: header.line + p.line, col: p.col + indent });
  }
  const quote = start.startsWith('"') || start.startsWith("'") ? 1 : 0;
  // A flow scalar's lines are folded (a line break in the file is a space in the string, `\n` a break in the string
  // alone): past its first line, a place in the string has no line of the file, and is said at the scalar's start.
  return (p) => (p.line === 1 ? { line: header.line, col: header.col + quote + p.col - 1 } : header);
}
