/**
 * The schema layer: kubeconform's job, done offline. Each resource is checked
 * against the schema for its apiVersion/kind (kubernetes-models validators for
 * core kinds and the Argo CD / prometheus-operator CRDs, ajv-compiled JSON
 * Schemas from this repo for other CRDs), then walked for unknown fields.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { didYouMean } from '../model/core/did-you-mean.ts';
import type { Finding } from '../model/core/findings.ts';
import { findingAt, type Resource } from '../model/core/manifest.ts';
import { cronJobFindings, objectSizeFindings } from './kind-findings.ts';
import { loadFieldTrees, packageDir, unknownFieldPaths, type FieldTrees, type Shape } from './field-tree.ts';
import { jsonOf, packageVersion } from '../model/stores/outcome-store.ts';
import { asDefaulted } from './structural-defaults.ts';
import { crdAjvMakeup, crdsFromObjects, loadRepoCrds, NULLABLE_AS_TYPES, shapesFromJsonSchema, type LazyCrd, type RepoCrd } from './repo-crds.ts';
import { cachedValidator } from '../model/stores/validation-cache.ts';
import { decodedFormatsMakeup, useDecodedFormats } from './decoded-formats.ts';
import { schemaErrorFindings } from './schema-errors.ts';
import { perPair } from '../model/core/per-object.ts';
import { NO_SCHEMA_ALLOWLIST } from './allowlist.ts';
import { removalFor } from './removed-apis.ts';
import { CLUSTER_SCOPED_BUILTIN_KINDS } from './scope.ts';

/**
 * The Kubernetes minor the bundled kubernetes-models 5.x schemas describe
 * (generated from Kubernetes 1.36.0). Read off the models: the 1.36 field
 * PodSpec.schedulingGroup is present; a test keeps this honest.
 */
export const BUNDLED_SCHEMA_MINOR = 36;

export type ResourceStatus = 'valid' | 'invalid' | 'error' | 'skipped';

export interface SchemaOptions {
  strict: boolean;
  kubernetesMinor: number;
  /** `Kind` or `apiVersion/Kind` entries. */
  skip: readonly string[];
  reject: readonly string[];
  ignoreMissingSchemas: boolean;
}

export interface SchemaResult {
  status: ResourceStatus;
  findings: Finding[];
}

type Validator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** A CRD's validator run on the object as the API server validates it: its nulls pruned and its defaults set (structural-defaults.ts). */
function defaultedFirst(validate: Validator, schema: object): Validator {
  const run = ((data: unknown) => {
    const valid = validate(asDefaulted(data, schema as Record<string, unknown>));
    run.errors = validate.errors;
    return valid;
  }) as Validator;
  return run;
}

interface KindSchema {
  validate: Validator;
  root: number;
  /** A built-in kind's precompiled validator is imported only when an object's outcome is not stored. */
  load?: KindLoad;
}

interface KindLoad {
  known(data: unknown): boolean;
  import(): Promise<void>;
  /** Validate every object directly (a large tree), or through the outcome store. */
  direct(on: boolean): void;
}

/** The built-in kind whose schema judges a custom resource's ObjectMeta: a ConfigMap is ObjectMeta and optional data. */
const METADATA_KIND = 'v1/ConfigMap';
const metadataOnly = (r: Resource) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: r.object.metadata });

/** From this many resources on, built-in kinds are validated directly (see prepareFor). */
const DIRECT_FROM = 2000;

function matchesKindList(list: readonly string[], resource: Resource): boolean {
  return list.some((entry) => entry === resource.kind || entry === `${resource.apiVersion}/${resource.kind}`);
}

export class SchemaLayer {
  private readonly byKind = new Map<string, KindSchema>();

  /** CRDs the repository renders or declares: their schemas come first, ahead of the model packages. */
  /** The CRDs the repository applies or renders, by `apiVersion/Kind`: compiled, keyed and shaped on first use. */
  private readonly declared = new Map<string, Pick<LazyCrd, 'apiVersion' | 'kind' | 'scope' | 'file' | 'compile' | 'raw'> & { root: number; key: string }>();

  private readonly trees: FieldTrees;
  private readonly shapes: Shape[];
  private readonly repoCrds: Map<string, RepoCrd & { root: number }>;
  private constructor(trees: FieldTrees, shapes: Shape[], repoCrds: Map<string, RepoCrd & { root: number }>) {
    this.trees = trees;
    this.shapes = shapes;
    this.repoCrds = repoCrds;
  }

  /**
   * A layer that also knows the CRDs among these objects (plain or rendered).
   * Each CRD's openAPIV3Schema becomes the schema of its kind, strict, ahead
   * of the model packages: the cluster will validate against it.
   */
  withCrds(crdObjects: readonly { file: string; object: Record<string, unknown> }[]): SchemaLayer {
    const found = crdsFromObjects(crdObjects);
    if (found.length === 0) return this;
    const shapes = [...this.shapes];
    const metaShape = (shapes[this.trees.kinds['v1/ConfigMap']!.root] as { f: Record<string, number> }).f.metadata!;
    const layer = new SchemaLayer(this.trees, shapes, this.repoCrds);
    for (const crd of found) {
      // A kind's field shapes are built the first time a resource of it is checked: most CRDs a chart installs have no resource here.
      let root: number | undefined;
      layer.declared.set(`${crd.apiVersion}/${crd.kind}`, {
        apiVersion: crd.apiVersion,
        kind: crd.kind,
        scope: crd.scope,
        file: crd.file,
        raw: crd.raw,
        compile: () => crd.compile(),
        // Keyed and shaped by the schema as written: `nullable` changes neither its fields nor whether a node is an
        // object, and the conversion ajv needs walks megabytes of the charts' CRDs, so it waits for a compile.
        get key() {
          return `${NULLABLE_AS_TYPES}\0${jsonOf(crd.raw)}`;
        },
        get root() {
          return (root ??= shapesFromJsonSchema(crd.raw, shapes, metaShape));
        },
      });
    }
    return layer;
  }

  /** Every `apiVersion/Kind` this layer has a schema for: the model packages', the bundled CRDs' and the declared ones. */
  knownKinds(): string[] {
    return [...Object.keys(this.trees.kinds), ...this.repoCrds.keys(), ...this.declared.keys()];
  }

  /** `group/version` and `group/version/Kind` of every built-in API: what Argo CD passes Helm as --api-versions. */
  builtinApiVersions(): string[] {
    const out = new Set<string>();
    for (const key of Object.keys(this.trees.kinds)) {
      if (this.trees.kinds[key]!.validator.pkg !== 'kubernetes-models') continue;
      const slash = key.lastIndexOf('/');
      out.add(key.slice(0, slash));
      out.add(key);
    }
    return [...out].sort();
  }

  static async create(): Promise<SchemaLayer> {
    const trees = await loadFieldTrees();
    const shapes = [...trees.shapes];
    const objectMeta = trees.kinds['v1/ConfigMap']!;
    const metaShape = (shapes[objectMeta.root] as { f: Record<string, number> }).f.metadata!;
    const repoCrds = new Map<string, RepoCrd & { root: number }>();
    for (const crd of loadRepoCrds()) {
      // Not spread: that would compile the validator now, which the getter leaves to the first resource of the kind.
      const root = shapesFromJsonSchema(crd.schema, shapes, metaShape);
      repoCrds.set(`${crd.apiVersion}/${crd.kind}`, Object.defineProperties({ root } as RepoCrd & { root: number }, Object.getOwnPropertyDescriptors(crd)));
    }
    return new SchemaLayer(trees, shapes, repoCrds);
  }

  /** Readies the validators these resources need ahead of the synchronous checks: a built-in kind's is imported only for an object whose outcome is not stored. */
  async prepareFor(resources: readonly Resource[]): Promise<void> {
    const custom = resources.filter((r) => this.isCustom(`${r.apiVersion}/${r.kind}`));
    await this.prepare([...resources.map((r) => `${r.apiVersion}/${r.kind}`), ...(custom.length ? [METADATA_KIND] : [])]);
    const large = resources.length >= DIRECT_FROM;
    const needed = new Set<KindLoad>();
    const wants = (load: KindLoad | undefined, object: unknown) => {
      if (!load || needed.has(load)) return;
      load.direct(large);
      if (large || !load.known(object)) needed.add(load);
    };
    for (const r of resources) wants(this.byKind.get(`${r.apiVersion}/${r.kind}`)?.load, r.object);
    for (const r of custom) wants(this.byKind.get(METADATA_KIND)?.load, metadataOnly(r));
    await Promise.all([...needed].map((l) => l.import()));
  }

  /** Whether a kind's schema is a CRD's (declared among the objects, or bundled), whose metadata its schema leaves to ObjectMeta. */
  private isCustom(key: string): boolean {
    return this.declared.has(key) || this.repoCrds.has(key);
  }

  /** Imports the validators for these `apiVersion/kind` keys ahead of the synchronous checks. */
  async prepare(keys: Iterable<string>): Promise<void> {
    await Promise.all(
      [...new Set(keys)]
        .filter((k) => !this.byKind.has(k))
        .map(async (key) => {
          const declared = this.declared.get(key);
          if (declared) {
            // Compiled on the first object whose outcome is not cached (schema/validation-cache.ts).
            const compile = (): ValidateFunction => {
              try {
                return declared.compile();
              } catch (err) {
                // A schema ajv cannot compile still gives its field names; the value checks say they could not run.
                const reason = (err as Error).message.split('\n')[0];
                return Object.assign(() => false, {
                  errors: [
                    {
                      instancePath: '',
                      keyword: 'schema',
                      params: {},
                      schemaPath: '#',
                      message: `the CRD's schema (${declared.file}) does not compile here, so values are not checked: ${reason}`,
                    },
                  ],
                }) as unknown as ValidateFunction;
              }
            };
            this.byKind.set(key, {
              validate: defaultedFirst(cachedValidator(declared.key, crdAjvMakeup(), compile) as Validator, declared.raw),
              root: declared.root,
            });
            return;
          }
          const crd = this.repoCrds.get(key);
          if (crd) {
            this.byKind.set(key, {
              validate: defaultedFirst(cachedValidator(JSON.stringify(crd.schema), crdAjvMakeup(), () => crd.validate) as Validator, crd.schema),
              root: crd.root,
            });
            return;
          }
          const entry = this.trees.kinds[key];
          if (!entry) return;
          // The model package's precompiled validator, imported only when some object's outcome is not stored
          // (prepareFor), so a warm run imports none of them.
          const url = pathToFileURL(join(packageDir(entry.validator.pkg), entry.validator.file)).href;
          let loaded: ValidateFunction | undefined;
          const cached = cachedValidator(
            `${entry.validator.pkg}@${packageVersion(entry.validator.pkg)}/${entry.validator.file}`,
            decodedFormatsMakeup(),
            () => {
              if (!loaded) throw new Error(`the validator of ${key} was not imported before an object needed it`);
              return loaded;
            },
          );
          // A large tree validates directly: a stored outcome's key (the object as JSON, hashed) costs more than the
          // precompiled validator itself, and the import is paid once.
          let direct = false;
          const validate = ((data: unknown) => {
            const run = direct ? loaded! : cached;
            const valid = run(data) as boolean;
            validate.errors = run.errors;
            return valid;
          }) as Validator;
          const load: KindLoad = {
            known: (data) => cached.known(data),
            import: async () => {
              await useDecodedFormats(packageDir(entry.validator.pkg));
              loaded ??= ((await import(url)) as { validate: ValidateFunction }).validate;
            },
            direct: (on) => void (direct = on),
          };
          this.byKind.set(key, { validate, root: entry.root, load });
        }),
    );
  }

  hasSchema(apiVersion: string, kind: string): boolean {
    const key = `${apiVersion}/${kind}`;
    return this.declared.has(key) || this.repoCrds.has(key) || key in this.trees.kinds;
  }

  isClusterScoped(apiVersion: string, kind: string): boolean {
    const key = `${apiVersion}/${kind}`;
    const crd = this.declared.get(key) ?? this.repoCrds.get(key);
    if (crd) return crd.scope === 'Cluster';
    return this.trees.kinds[key]?.validator.pkg === 'kubernetes-models' && CLUSTER_SCOPED_BUILTIN_KINDS.has(kind);
  }

  check(resource: Resource, options: SchemaOptions): SchemaResult {
    if (matchesKindList(options.skip, resource)) return { status: 'skipped', findings: [] };
    if (matchesKindList(options.reject, resource)) {
      return {
        status: 'invalid',
        findings: [findingAt(resource, ['kind'], { check: 'rejected-kind', message: `${resource.apiVersion}/${resource.kind} is on the --reject list` })],
      };
    }
    const removal = removalFor(resource.apiVersion, resource.kind, options.kubernetesMinor);
    if (removal) {
      return {
        status: 'invalid',
        findings: [
          findingAt(resource, ['apiVersion'], {
            check: 'removed-api',
            message: `${resource.apiVersion} ${resource.kind} is not served since Kubernetes 1.${removal.removedIn}`,
            fix: `use ${removal.replacement}`,
          }),
        ],
      };
    }
    const key = `${resource.apiVersion}/${resource.kind}`;
    const schema = this.byKind.get(key);
    if (!schema) {
      const allowed = NO_SCHEMA_ALLOWLIST.find((a) => `${a.apiVersion}/${a.kind}` === key);
      if (allowed || options.ignoreMissingSchemas) return { status: 'skipped', findings: [] };
      return {
        status: 'error',
        findings: [
          findingAt(resource, ['kind'], {
            check: 'missing-schema',
            message: `no schema for ${key}`,
            fix: 'add a CRD JSON Schema under policy-tests/schema/crds/, or an entry with a reason to policy-tests/schema/allowlist.ts',
          }),
        ],
      };
    }
    const findings: Finding[] = [];
    if (!schema.validate(resource.object) && schema.validate.errors)
      findings.push(...schemaErrorFindings(resource, key, schema.validate.errors, { precompiled: schema.load !== undefined }));
    if (this.isCustom(key)) findings.push(...this.metadataFindings(resource, key));
    if (options.strict) findings.push(...this.unknownFields(resource, schema.root, key));
    if (key === 'batch/v1/CronJob') findings.push(...cronJobFindings(resource));
    if (key === 'v1/ConfigMap' || key === 'v1/Secret') findings.push(...objectSizeFindings(resource));
    return { status: findings.length ? 'invalid' : 'valid', findings };
  }

  /**
   * A custom resource's metadata as the API server decodes it: into ObjectMeta, whose field types a CRD's schema does
   * not state (its metadata is an object, at most its name constrained), so `namespace: {}` or a label valued 1 is
   * refused at decoding. Judged with ObjectMeta's own schema, through a ConfigMap holding only that metadata.
   */
  private metadataFindings(resource: Resource, key: string): Finding[] {
    const meta = this.byKind.get(METADATA_KIND);
    if (!meta || meta.validate(metadataOnly(resource)) || !meta.validate.errors) return [];
    const errors = meta.validate.errors.filter((e) => e.instancePath.startsWith('/metadata'));
    return schemaErrorFindings(resource, key, errors, { precompiled: true });
  }

  /**
   * The unknown fields of a resource, once per resource and root shape: an unchanged file's resources are shared
   * by every view of the repository, and a built-in kind's shapes by every layer (a CRD's are a layer's own).
   */
  private unknownFields(resource: Resource, rootId: number, key: string): readonly Finding[] {
    const find = () => {
      const found: Finding[] = [];
      this.findUnknownFields({ resource, key, out: found }, resource.object, rootId);
      return found;
    };
    const root = this.shapes[rootId];
    return typeof root === 'object' ? unknownFieldsSeen(resource, root, find) : find();
  }

  /** Unknown fields of `value` under its shape (field-tree.ts unknownFieldPaths), each a finding at its key. */
  private findUnknownFields(walk: { resource: Resource; key: string; out: Finding[] }, value: unknown, shapeId: number): void {
    const { resource, key, out } = walk;
    for (const { path, known } of unknownFieldPaths(this.shapes, shapeId, value))
      out.push(
        findingAt(resource, path, {
          check: 'unknown-field',
          message: `${key}: unknown field "${path.join('.')}"${didYouMean(String(path.at(-1)), known)}`,
          fix: known.length ? `remove it or fix its name; known fields here: ${known.join(', ')}` : 'remove it: the schema declares no field here',
          target: 'key',
        }),
      );
  }
}

/** Unknown fields found, by resource and root shape (SchemaLayer.unknownFields). Never mutated. */
const unknownFieldsSeen = perPair<Resource, readonly Finding[]>();
