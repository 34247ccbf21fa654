/**
 * The formats a built-in kind's precompiled validator checks, read as the API server's decoding reads those fields.
 *
 * Why: kubernetes-models' validators take every format from one registry (`formats` of @kubernetes-models/validate),
 * where it has JSON Schema's or its own meaning, but the API server never checks a built-in kind's formats: it
 * decodes each field into its Go type, and that decides. A `quantity` there takes any SI prefix (`1d`, `2h`, `1Y`),
 * which `Quantity.UnmarshalJSON` refuses, and refuses `" 1Gi"`, which it trims and takes; a `byte` string wrapped
 * over lines (a caBundle or a certificate pasted as `base64` prints it) fails there, where encoding/json's []byte
 * skips the line breaks; a `date-time` with a space or a lowercase `t` passes there, where metav1.Time's
 * `time.Parse(time.RFC3339)` refuses it. So the registry's three entries are given the decoders' readings, in place,
 * before a validator first runs (each validator keeps the entry object it read at load, and asks it each time).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { decodeQuantity, quantityMakeup } from '../model/go/quantity.ts';
import { isJsonBytes } from '../model/go/json.ts';
import { isGoRFC3339 } from '../model/go/strfmt.ts';

interface Registry {
  formats: Record<string, { validate: unknown }>;
}

/** Each format's reading, as the precompiled code calls it: a quantity's entry is asked `.validate.test(text)`, the others `.validate(text)`. */
const DECODED: Record<string, unknown> = {
  quantity: { test: (text: string) => decodeQuantity(text).ok },
  byte: isJsonBytes,
  'date-time': isGoRFC3339,
};

/** What decides a precompiled validator's outcome besides its schema: these readings' code, so a change to them is a new key in the stores. */
let makeup: string | undefined;
export const decodedFormatsMakeup = (): string => (makeup ??= ['precompiled', isJsonBytes, isGoRFC3339, quantityMakeup()].map(String).join('\n'));

/** The registry a package's validators import: the copy Node's resolution finds from the package up. */
function registryFileOf(packageDir: string): string | undefined {
  for (let dir = packageDir; ; dir = dirname(dir)) {
    const file = join(dir, 'node_modules', '@kubernetes-models', 'validate', 'dist', 'index.js');
    if (existsSync(file)) return file;
    if (dirname(dir) === dir) return undefined;
  }
}

const given = new Map<string, Promise<void>>();

/** Gives the registry the validators of the package at `packageDir` read the decoders' readings, once per registry. */
export function useDecodedFormats(packageDir: string): Promise<void> {
  const file = registryFileOf(packageDir);
  if (file === undefined) return Promise.reject(new Error(`@kubernetes-models/validate is not installed beside ${packageDir}: run npm ci`));
  let done = given.get(file);
  if (!done) {
    done = import(pathToFileURL(file).href).then((registry: Registry) => {
      for (const [name, reading] of Object.entries(DECODED)) {
        const entry = registry.formats[name];
        if (entry === undefined) throw new Error(`@kubernetes-models/validate has no "${name}" format to read as the API server decodes it`);
        entry.validate = reading;
      }
    });
    given.set(file, done);
  }
  return done;
}
