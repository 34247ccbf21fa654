/**
 * Versions as Falco's engine reads them (libsinsp's sinsp_version, version.h): "x.y.z" as sscanf's "%u.%u.%u" reads it
 * (blanks before a number, a sign, anything after the third), and compatible where the major is the same and the
 * version is not older. Rules files' required engine and plugin versions are both held to it.
 */

/** A version's three numbers, or undefined where sscanf reads fewer than three. */
export function sinspVersion(text: string): [number, number, number] | undefined {
  const m = /^\s*([+-]?\d+)\.\s*([+-]?\d+)\.\s*([+-]?\d+)/.exec(text);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/** sinsp_version::compatible_with: the same major, and `actual` not older than `required`. */
export function compatibleWith(actual: readonly number[], required: readonly number[]): boolean {
  if (actual[0] !== required[0]) return false;
  for (let i = 1; i < 3; i++) if (actual[i] !== required[i]) return actual[i]! > required[i]!;
  return true;
}
