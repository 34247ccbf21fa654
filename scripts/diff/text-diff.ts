/**
 * A changed multi-line string (a config file in a ConfigMap, a script, a rule group) shown as the lines that
 * changed, with three lines of context, as `git diff` shows a file; jsdiff's Myers diff does the work. Shown whole
 * before, a one-line change in a 3 KB config was two 3 KB strings a person had to compare by eye.
 */
import { structuredPatch } from 'diff';

/** The edit distance past which the diff gives up and the values are shown whole: bounds the work on any input. */
const MAX_EDIT_LENGTH = 2_000;

/** Whether a change is one between two texts of several lines. */
export const isTextChange = (from: unknown, to: unknown): from is string =>
  typeof from === 'string' && typeof to === 'string' && (from.includes('\n') || to.includes('\n'));

/**
 * The hunks of a text change, each line signed in its first column (`-`, `+`, or a space) and indented by
 * `indent` after it; undefined where the texts differ too much to diff within the bound.
 */
export function textHunks(from: string, to: string, indent: string): string[] | undefined {
  const patch = structuredPatch('', '', from, to, undefined, undefined, { context: 3, maxEditLength: MAX_EDIT_LENGTH });
  if (!patch) return undefined;
  return patch.hunks.flatMap((h) => [
    ` ${indent}@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`,
    // jsdiff's "\ No newline at end of file" marks a last line without a newline; the value shows that already.
    ...h.lines.filter((l) => !l.startsWith('\\')).map((l) => `${l[0]}${indent}${l.slice(1)}`),
  ]);
}
