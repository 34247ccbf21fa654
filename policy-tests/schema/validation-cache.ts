/**
 * A warm-start cache of CRD schema validation results, keyed by inputs, never
 * by time: the digest of the schema, the object as JSON, and the validator's
 * own make-up (ajv's and ajv-formats' versions and the code that configures
 * them). An unchanged object under an unchanged CRD is not validated again,
 * and a CRD none of whose objects changed is never compiled, which is most of
 * a warm run's cost (the prometheus-operator and Rook CRDs take about 0.8 s
 * to compile). Kept under node_modules/.cache/homelab-gate/, beside the field
 * trees; each flush writes what this process used, so the file stays the size
 * of the trees it judged.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { writeFileAtomic } from '../model/write-atomic.ts';
import { packageDir } from './field-tree.ts';

interface Outcome {
  valid: boolean;
  errors?: ErrorObject[];
}

/** A validator with ajv's interface: call it, then read `errors`. */
export type CachedValidator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

const digest = (text: string): string => createHash('sha256').update(text).digest('base64url');
const versionOf = (name: string): string => (JSON.parse(readFileSync(join(packageDir(name), 'package.json'), 'utf8')) as { version: string }).version;

let file: string | undefined;
let known: Map<string, Outcome> | undefined;
const used = new Map<string, Outcome>();
let dirty = false;

function cacheFile(): string {
  return (file ??= join(dirname(packageDir('kubernetes-models')), '.cache', 'homelab-gate', 'crd-validation.json'));
}

function outcomes(): Map<string, Outcome> {
  if (known) return known;
  try {
    known = new Map(Object.entries(JSON.parse(readFileSync(cacheFile(), 'utf8')) as Record<string, Outcome>));
  } catch {
    known = new Map(); // none yet, or torn: made again
  }
  return known;
}

/**
 * Wraps a validator made by `compile` (called at most once, on the first
 * object not in the cache). `validatorMakeup` names what else decides the
 * outcome: the ajv configuration's code, so a change to it is a new key.
 */
export function cachedValidator(schemaJson: string, validatorMakeup: string, compile: () => ValidateFunction): CachedValidator {
  const prefix = digest([versionOf('ajv'), versionOf('ajv-formats'), validatorMakeup, schemaJson].join('\0'));
  let compiled: ValidateFunction | undefined;
  const validate: CachedValidator = (data: unknown) => {
    const key = digest(`${prefix}\0${JSON.stringify(data)}`);
    let outcome = used.get(key) ?? outcomes().get(key);
    if (!outcome) {
      compiled ??= compile();
      const valid = compiled(data);
      outcome = valid ? { valid } : { valid, errors: (compiled.errors ?? []).map((e) => ({ ...e })) };
      dirty = true;
    }
    if (!used.has(key)) {
      used.set(key, outcome);
      dirty ||= !outcomes().has(key);
    }
    validate.errors = outcome.valid ? null : (outcome.errors ?? []).map((e) => ({ ...e }));
    return outcome.valid;
  };
  return validate;
}

/** Writes what this process used, when anything was new. Never fails the run: the cache only saves time. */
export function flushValidationCache(): void {
  if (!dirty) return;
  try {
    writeFileAtomic(cacheFile(), JSON.stringify(Object.fromEntries(used)));
    dirty = false;
  } catch {
    // A read-only node_modules: the next run validates again.
  }
}
