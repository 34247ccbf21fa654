/**
 * Validation outcomes kept across runs (model/stores/outcome-store.ts), keyed by the
 * schema (or the precompiled validator's package, version and file), the
 * object as JSON, and the validator's own make-up (ajv's and ajv-formats'
 * versions and the code that configures them). An unchanged object under an
 * unchanged schema is not validated again, and a validator none of whose
 * objects changed is never compiled or loaded, which is most of a warm run's
 * cost (the prometheus-operator and Rook CRDs take about 0.8 s to compile,
 * the built-in kinds' modules about 0.2 s to load). Used by the schema layer
 * and by the media settings' schemas.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { digest, jsonOf, outcomeStore, packageVersion } from './outcome-store.ts';

interface Outcome {
  valid: boolean;
  errors?: ErrorObject[];
}

/** A validator with ajv's interface: call it, then read `errors`. `known` says whether an object's outcome is stored. */
export type CachedValidator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null; known(data: unknown): boolean };

const store = outcomeStore<Outcome>('validation', () => `${packageVersion('ajv')}\0${packageVersion('ajv-formats')}`);

/**
 * Outcomes by validator (its key's prefix) and object, for this process: an unchanged file's objects are shared
 * by every view of the repository (the mutation runs make hundreds, each with validators of its own), and
 * hashing an object's JSON for its key in the store is most of a lookup there.
 */
const seenBy = new Map<string, WeakMap<object, Outcome>>();

/**
 * Wraps a validator made by `compile` (called at most once, on the first
 * object not in the store). `validatorMakeup` names what else decides the
 * outcome: the ajv configuration's code, so a change to it is a new key.
 */
export function cachedValidator(schemaJson: string, validatorMakeup: string, compile: () => ValidateFunction): CachedValidator {
  const prefix = digest(`${validatorMakeup}\0${schemaJson}`);
  let compiled: ValidateFunction | undefined;
  const known = seenBy.get(prefix) ?? new WeakMap<object, Outcome>();
  seenBy.set(prefix, known);
  const remembered = (data: unknown) => (typeof data === 'object' && data !== null ? known.get(data) : undefined);
  const validate = ((data: unknown) => {
    let outcome = remembered(data);
    if (!outcome) {
      const key = [prefix, jsonOf(data)];
      outcome = store.get(key);
      if (!outcome) {
        compiled ??= compile();
        const valid = compiled(data);
        outcome = valid ? { valid } : { valid, errors: (compiled.errors ?? []).map((e) => ({ ...e })) };
        store.set(key, outcome);
      }
      if (typeof data === 'object' && data !== null) known.set(data, outcome);
    }
    validate.errors = outcome.valid ? null : (outcome.errors ?? []).map((e) => ({ ...e }));
    return outcome.valid;
  }) as CachedValidator;
  validate.known = (data) => {
    if (remembered(data) !== undefined) return true;
    const outcome = store.get([prefix, jsonOf(data)]);
    // Remembered for the validation that follows: the object's key is hashed once, not twice.
    if (outcome !== undefined && typeof data === 'object' && data !== null) known.set(data, outcome);
    return outcome !== undefined;
  };
  return validate;
}

/** Whether a schema compiled before under this make-up: a warm run need not compile it to know. */
const compiles = outcomeStore<boolean>('compiles', () => packageVersion('ajv'));

export function knownToCompile(schemaJson: string, validatorMakeup: string): { known: boolean; remember(): void } {
  const key = [validatorMakeup, schemaJson];
  return { known: compiles.get(key) === true, remember: () => compiles.set(key, true) };
}
