/** How an update rule says what the API server does with a changed field (updates.ts and the rules beside it). */
import type { PathSegment } from '../../model/core/positions.ts';
import type { Invalid } from './metadata.ts';
import { semanticEqual } from './semantic-equal.ts';

/** An object as the rules read it: decoded YAML, any shape (each rule reads optionally). */
export type Obj = Record<string, any>;

export const IMMUTABLE = 'field is immutable';

/** The API server refuses the update at `path`, in its words. */
export const refuse = (path: PathSegment[], fn: string, message: string): Invalid => ({ path, fn, message });

/** Whether the API server refuses it depends on what the gate cannot see of the live object: not judged. */
export const unknown = (path: PathSegment[], fn: string, message: string): Invalid => ({ path, fn, message, notJudged: true });

/** A field fixed at creation: refused where the two sides differ as the API server compares them. */
export const immutable = ([old, next]: [unknown, unknown], path: PathSegment[], fn: string, message = IMMUTABLE): Invalid[] =>
  semanticEqual(old, next) ? [] : [refuse(path, fn, message)];

/** What an update is judged against beyond the two objects: the cluster's StorageClasses and its Service families. */
export interface UpdateCluster {
  /** A StorageClass by name, as the cluster has it when the claim is synced; undefined when the repository has none. */
  storageClass(name: string): Obj | undefined;
  /** The class the DefaultStorageClass admission plugin gave a claim that named none at its creation, when known. */
  defaultStorageClass: string | undefined;
  /** The IP families of the cluster's Service ranges, the default first, when the facts say them. */
  serviceFamilies?: readonly string[];
}
