/** encoding/json's field match: a key names the struct field of its exact JSON name, else the first one equal to it with letters of another case. */
export function jsonFieldOf(fields: Readonly<Record<string, unknown>>, key: string): string | undefined {
  if (Object.hasOwn(fields, key)) return key;
  const folded = key.toLowerCase();
  return Object.keys(fields).find((f) => f.toLowerCase() === folded);
}
