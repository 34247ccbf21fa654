/**
 * What External Secrets' validating webhook refuses (v2.9.0, apis/externalsecrets/v1: `validateExternalSecret` in
 * externalsecret_validator.go, `validateStore` in secretstore_validator.go, and the 1Password SDK provider's
 * `ValidateStore`), each refusal in its words and at the place it is about. The API server applies the CRD's
 * defaults first (a target's creationPolicy Owner and deletionPolicy Retain, a templateFrom's target Data), so they
 * are applied here too. Another provider's own store rules are not ported, and said so.
 */
import { isSet, list, obj as dictOf, str as text } from '../../model/core/dig.ts';
import { goDurationMs, goParseDuration } from '../../model/core/time.ts';
import type { PathSegment } from '../../model/core/positions.ts';
import { re2Problem } from '../../model/core/re2.ts';

type Obj = Record<string, any>;

export interface Refusal {
  path: PathSegment[];
  message: string;
}

const obj = dictOf as (v: unknown) => Obj;

const SECRET_TARGETS = ['Data', 'Annotations', 'Labels'];

/** The target as the API server hands it to the webhook: the CRD's defaults applied. */
function targetOf(spec: Obj): Obj {
  const target: Obj = { creationPolicy: 'Owner', deletionPolicy: 'Retain', ...obj(spec.target) };
  const template = target.template === undefined || target.template === null ? undefined : { ...obj(target.template) };
  if (template) template.templateFrom = list(template.templateFrom).map((t) => ({ target: 'Data', ...obj(t) }));
  return { ...target, template };
}

function policyRefusals(target: Obj): Refusal[] {
  const at = ['spec', 'target', 'deletionPolicy'];
  const out: Refusal[] = [];
  if (target.deletionPolicy === 'Delete' && ['Merge', 'None', 'CreateOrMerge'].includes(target.creationPolicy))
    out.push({ path: at, message: "deletionPolicy=Delete must not be used when the controller doesn't own the secret. Please set creationPolicy=Owner" });
  if (target.deletionPolicy === 'Merge' && target.creationPolicy === 'None')
    out.push({ path: at, message: 'deletionPolicy=Merge must not be used with creationPolicy=None. There is no Secret to merge with' });
  return out;
}

/** validatePrivilegedTemplate: no long-lived service account token, no bootstrap token. */
function privilegedTemplateRefusal(template: Obj | undefined): Refusal | undefined {
  if (!template) return undefined;
  const at = ['spec', 'target', 'template'];
  if (template.type === 'kubernetes.io/service-account-token') {
    if (Object.hasOwn(obj(obj(template.metadata).annotations), 'kubernetes.io/service-account.name'))
      return {
        path: [...at, 'type'],
        message: 'template.type="kubernetes.io/service-account-token" with annotation "kubernetes.io/service-account.name" is not allowed',
      };
    const i = list(template.templateFrom).findIndex((t) => text(obj(t).target).toLowerCase() === 'annotations');
    if (i >= 0)
      return {
        path: [...at, 'templateFrom', i, 'target'],
        message: 'template.type="kubernetes.io/service-account-token" with templateFrom target="Annotations" is not allowed',
      };
  }
  if (template.type === 'bootstrap.kubernetes.io/token')
    return { path: [...at, 'type'], message: 'template.type="bootstrap.kubernetes.io/token" is not allowed' };
  return undefined;
}

/** ValidateSecretTemplateFromTargets, where the ExternalSecret writes a Secret: Data, Annotations or Labels only. */
function templateFromRefusals(target: Obj): Refusal[] {
  const manifest = target.manifest;
  if (isSet(manifest) && !(obj(manifest).apiVersion === 'v1' && obj(manifest).kind === 'Secret')) return [];
  return list(obj(target.template).templateFrom).flatMap((raw, i) => {
    const t = text(obj(raw).target);
    return t === '' || SECRET_TARGETS.some((s) => s.toLowerCase() === t.toLowerCase())
      ? []
      : [
          {
            path: ['spec', 'target', 'template', 'templateFrom', i, 'target'],
            message: `templateFrom target=${JSON.stringify(t)} is not allowed when targeting a Secret, must be one of "Data", "Annotations" or "Labels"`,
          },
        ];
  });
}

/** A dataFrom entry: one of extract, find and a generator, and a sourceRef that names something. */
function dataFromRefusals(ref: Obj, at: PathSegment[]): Refusal[] {
  const [find, extract, sourceRef] = [isSet(ref.find), isSet(ref.extract), isSet(ref.sourceRef)];
  const generator = sourceRef && isSet(obj(ref.sourceRef).generatorRef);
  const out: Refusal[] = [];
  if ([find, extract, generator].filter(Boolean).length > 1) out.push({ path: at, message: 'extract, find, or generatorRef cannot be set at the same time' });
  if (!find && !extract && !sourceRef) out.push({ path: at, message: 'either extract, find, or sourceRef must be set to dataFrom' });
  if (sourceRef && !generator && !isSet(obj(ref.sourceRef).storeRef))
    out.push({ path: [...at, 'sourceRef'], message: 'generatorRef or storeRef must be set when using sourceRef in dataFrom' });
  return out;
}

/** validateExternalSecret: each error errors.Join gathers, in its order. */
/**
 * The webhook decodes the object before it validates it: ExternalSecretSpec.RefreshInterval is a *metav1.Duration,
 * whose UnmarshalJSON reads a JSON string and parses it with Go's time.ParseDuration, so the CRD (which asks only for
 * a string) lets through a text the decoder refuses, and the webhook answers with the decode error alone.
 */
function refreshDecodeRefusal(v: unknown): Refusal | undefined {
  if (v === undefined || v === null) return undefined;
  const at = ['spec', 'refreshInterval'];
  if (typeof v !== 'string')
    return {
      path: at,
      message: `json: cannot unmarshal ${Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v} into Go value of type string`,
    };
  const parsed = goParseDuration(v);
  return parsed.ok ? undefined : { path: at, message: parsed.error };
}

export function externalSecretRefusals(spec: unknown): Refusal[] {
  const s = obj(spec);
  const undecodable = refreshDecodeRefusal(s.refreshInterval);
  if (undecodable) return [undecodable];
  const target = targetOf(s);
  const data = list(s.data);
  const out: Refusal[] = [...policyRefusals(target)];
  if (data.length === 0 && list(s.dataFrom).length === 0) out.push({ path: ['spec'], message: 'either data or dataFrom should be specified' });
  const privileged = privilegedTemplateRefusal(target.template as Obj | undefined);
  if (privileged) out.push(privileged);
  out.push(...templateFromRefusals(target));
  list(s.dataFrom).forEach((ref, i) => out.push(...dataFromRefusals(obj(ref), ['spec', 'dataFrom', i])));
  if (target.deletionPolicy === 'Retain') {
    const seen = new Set<string>();
    data.forEach((d, j) => {
      const key = text(obj(d).secretKey);
      if (seen.has(key)) out.push({ path: ['spec', 'data', j, 'secretKey'], message: `duplicate secretKey found: ${key}` });
      seen.add(key);
    });
  }
  return out;
}

/** SecretStoreSpec.GetRefreshInterval: seconds as an integer, or a Go duration, never negative. */
export function refreshIntervalProblem(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number') return v < 0 ? `invalid refreshInterval ${v}: must not be negative` : undefined;
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  const ms = goDurationMs(s);
  if (ms === undefined)
    return `invalid refreshInterval ${JSON.stringify(s)}: time: ${/^[-+]?(\d+\.?\d*|\.\d+)$/.test(s) ? 'missing unit in duration' : 'invalid duration'} ${JSON.stringify(s)}`;
  return ms < 0 ? `invalid refreshInterval ${JSON.stringify(s)}: must not be negative` : undefined;
}

/** Go's %w of a regexp.Compile error: `error parsing regexp: <RE2's words>`. */
const regexpError = (pattern: string): string | undefined => {
  const problem = re2Problem(pattern);
  return problem === undefined ? undefined : problem.startsWith('error parsing regexp') ? problem : `error parsing regexp: ${problem}`;
};

export interface StoreVerdict {
  refusals: Refusal[];
  warnings: string[];
  /** A provider whose own store rules are not ported. */
  unported?: string;
}

/** The 1Password SDK provider's ValidateStore: a token Secret's name and key, one of a vault and an environment, and a namespace as the store's scope needs. */
function onePasswordRefusal(config: Obj, kind: string, namespace: string | undefined): Refusal | undefined {
  const at = ['spec', 'provider', 'onepasswordSDK'];
  const wrap = (path: PathSegment[], why: string): Refusal => ({
    path: [...at, ...path],
    message: `received invalid 1PasswordSdk SecretStore resource: ${why}`,
  });
  const ref = obj(obj(config.auth).serviceAccountSecretRef);
  if (text(ref.name) === '')
    return wrap(['auth', 'serviceAccountSecretRef'], 'missing: spec.provider.onepasswordsdk.auth.secretRef.serviceAccountTokenSecretRef.name');
  if (text(ref.key) === '')
    return wrap(['auth', 'serviceAccountSecretRef'], 'missing: spec.provider.onepasswordsdk.auth.secretRef.serviceAccountTokenSecretRef.key');
  const [vault, environment] = [text(config.vault) !== '', text(config.environment) !== ''];
  if (vault && environment) return wrap(['vault'], 'spec.provider.onepasswordsdk.vault and spec.provider.onepasswordsdk.environment are mutually exclusive');
  if (!vault && !environment)
    return wrap([], 'missing: exactly one of spec.provider.onepasswordsdk.vault or spec.provider.onepasswordsdk.environment must be set');
  if (kind === 'ClusterSecretStore' && !isSet(ref.namespace)) return wrap(['auth', 'serviceAccountSecretRef'], 'cluster scope requires namespace');
  if (kind !== 'ClusterSecretStore' && isSet(ref.namespace) && ref.namespace !== namespace)
    return wrap(
      ['auth', 'serviceAccountSecretRef', 'namespace'],
      'namespace should either be empty or match the namespace of the SecretStore for a namespaced SecretStore',
    );
  return undefined;
}

/** validateStore on a SecretStore or ClusterSecretStore: it stops at the first step that fails, as upstream returns. */
export function storeRefusals(store: { kind: string; name: string; namespace?: string; spec: unknown }): StoreVerdict {
  const spec = obj(store.spec);
  const conditions = list(spec.conditions).flatMap((c, ci) =>
    list(obj(c).namespaceRegexes).flatMap((r, ri) => {
      const problem = regexpError(text(r));
      return problem
        ? [{ path: ['spec', 'conditions', ci, 'namespaceRegexes', ri], message: `failed to compile ${ri}th namespace regex in ${ci}th condition: ${problem}` }]
        : [];
    }),
  );
  if (conditions.length) return { refusals: conditions, warnings: [] };
  const refresh = refreshIntervalProblem(spec.refreshInterval);
  if (refresh) return { refusals: [{ path: ['spec', 'refreshInterval'], message: refresh }], warnings: [] };
  const providers = Object.entries(obj(spec.provider)).filter(([, v]) => isSet(v));
  if (providers.length !== 1)
    return {
      refusals: [
        {
          path: ['spec', 'provider'],
          message: `store error for ${store.name}: secret stores must only have exactly one backend specified, found ${providers.length}`,
        },
      ],
      warnings: [],
    };
  const [name, config] = providers[0]!;
  // Of the providers v2.9.0 registers, only the fake one is marked not maintained.
  const warnings = name === 'fake' ? [`store ${store.name} isn't currently maintained. Please plan and prepare accordingly.`] : [];
  if (name !== 'onepasswordSDK') return { refusals: [], warnings, unported: name };
  const refusal = onePasswordRefusal(obj(config), store.kind, store.namespace);
  return { refusals: refusal ? [refusal] : [], warnings };
}
