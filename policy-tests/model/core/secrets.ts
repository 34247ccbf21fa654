/**
 * A Secret's values as the API server stores them: `data` is base64 of the
 * bytes, `stringData` is plain text written over `data` key by key when the
 * object is saved. Two checks read credentials out of Secrets (the Argo CD
 * cluster Secrets, values committed through a chart); both read them here.
 */
import { scalarText } from './text.ts';

export interface SecretEntry {
  field: 'data' | 'stringData';
  key: string;
  /** The value as text: data decoded from base64, stringData as written. */
  value: string;
}

/** Every entry of a Secret object, data first, then stringData (which wins on the server where a key is in both). */
export function secretEntries(object: Record<string, unknown>): SecretEntry[] {
  const out: SecretEntry[] = [];
  for (const field of ['data', 'stringData'] as const) {
    const entries = object[field];
    if (!entries || typeof entries !== 'object' || Array.isArray(entries)) continue;
    for (const [key, raw] of Object.entries(entries as Record<string, unknown>))
      out.push({ field, key, value: field === 'data' && typeof raw === 'string' ? Buffer.from(raw, 'base64').toString('utf8') : scalarText(raw) });
  }
  return out;
}

/** The value a Secret holds under `key` once saved: its stringData entry, else its data entry decoded. */
export function secretValue(object: Record<string, unknown>, key: string): string | undefined {
  return secretEntries(object).findLast((e) => e.key === key)?.value;
}
