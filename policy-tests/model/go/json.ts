/** encoding/json's field match: a key names the struct field of its exact JSON name, else the first one equal to it with letters of another case. */
export function jsonFieldOf(fields: Readonly<Record<string, unknown>>, key: string): string | undefined {
  if (Object.hasOwn(fields, key)) return key;
  const folded = key.toLowerCase();
  return Object.keys(fields).find((f) => f.toLowerCase() === folded);
}

const STD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * encoding/json's []byte: a string base64.StdEncoding decodes, padded, in the standard alphabet, with the line breaks
 * (`\r`, `\n`) it skips wherever they stand, so a certificate wrapped at 76 columns decodes. Empty is no bytes.
 */
export const isJsonBytes = (s: string): boolean => STD_BASE64.test(s.replace(/[\r\n]/g, ''));
