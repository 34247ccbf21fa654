/**
 * Whether the fast reader (fast-manifest.ts) reads a text as the `yaml` library reads it: the same documents, the
 * same objects, every place `locate` gives, and nothing the `yaml` library's reading would name (a syntax error, a
 * repeated key, a YAML 1.1 scalar). The test of the fast reader and `npm run conformance -- --yaml-test-suite` (the
 * YAML test suite's every input) both ask it.
 */
import { isDeepStrictEqual } from 'node:util';
import { LineCounter, parseAllDocuments } from 'yaml';
import { duplicateKeys } from './duplicate-keys.ts';
import { fastManifest } from './fast-manifest.ts';
import { joined, placeTable } from './place-table.ts';
import { yaml11Ambiguities } from './yaml11.ts';

/** 'left' where the fast reader leaves the text to the `yaml` library; else 'same', or the first way the two differ. */
export function readerAgreement(text: string): string {
  const fast = fastManifest(text);
  if (!fast) return 'left';
  const lineCounter = new LineCounter();
  const parsed = parseAllDocuments(text, { lineCounter, uniqueKeys: false, merge: true });
  const docs = Array.isArray(parsed) ? parsed : [];
  if (docs.length !== fast.length) return `${docs.length} documents, the fast reader ${fast.length}`;
  for (const [i, doc] of docs.entries()) {
    if (doc.errors.length) return `the yaml library refuses document ${i}: ${doc.errors[0]!.message.split('\n')[0]}`;
    if (yaml11Ambiguities(doc, lineCounter).length) return `document ${i} holds a YAML 1.1 scalar`;
    if (duplicateKeys(doc, lineCounter).length) return `document ${i} repeats a key`;
    const value = doc.contents === null ? null : (doc.toJS({ maxAliasCount: 100 }) as unknown);
    if (!isDeepStrictEqual(value ?? null, fast[i]!.value))
      return `document ${i} reads ${JSON.stringify(value)}, the fast reader ${JSON.stringify(fast[i]!.value)}`;
    if (value === null) continue;
    const want = placeTable(doc, lineCounter);
    const got = joined(fast[i]!.table);
    if (got.keys !== want.keys) return `document ${i}: other paths`;
    const rows = want.keys.split('\u0002');
    for (let j = 0; j < want.places.length; j++)
      if (want.places[j] !== got.places[j])
        return `document ${i}, ${rows[j >> 2]!.split('\u0001').join('.')}: ${want.places[j]} where the fast reader says ${got.places[j]}`;
    if (!isDeepStrictEqual(got.root, want.root) || !got.complete) return `document ${i}: another start`;
  }
  return 'same';
}
