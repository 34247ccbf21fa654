/** Which Secrets an ExternalSecret writes: a secret the repo refers to must be one of them, never a committed value. */
import { namespaceOrDestination } from '../argocd/argocd.ts';
import { perRepo } from '../repository/per-repo.ts';
import type { Resource } from '../core/manifest.ts';
import type { Repo } from '../repository/repo.ts';
import type { Path } from '../core/positions.ts';
import { dig, isMap } from '../core/dig.ts';
import { TEXT_TEMPLATE_BUILTINS, templateParseError } from '../go/template-parse.ts';
import { str, type PodRef } from './references.ts';

/** The Secret an ExternalSecret writes: its target's name, else its own. */
const targetName = (es: Resource): string => (es.object.spec as { target?: { name?: string } } | undefined)?.target?.name ?? es.name;

const targets = perRepo((repo: Repo) => {
  const names = new Set<string>();
  for (const r of repo.resources.filter((x) => x.kind === 'ExternalSecret')) {
    const name = targetName(r);
    names.add(name);
    names.add(`${r.namespace ?? ''}/${name}`);
  }
  return names;
});

/** True when an ExternalSecret writes Secret `name` (in `namespace`, when given). */
export function writtenByExternalSecret(repo: Repo, name: string | undefined, namespace?: string): boolean {
  if (!name) return false;
  return targets(repo).has(namespace === undefined ? name : `${namespace}/${name}`);
}

/** The store item an ExternalSecret copies into one key of its Secret: store, item and field (`vaultField`). */
export interface StoreItem {
  store: string;
  key: string;
  property?: string;
}

const storeItems = perRepo((repo: Repo) => {
  const items = new Map<string, StoreItem>();
  for (const r of repo.resources.filter((x) => x.kind === 'ExternalSecret')) {
    const spec = (r.object.spec ?? {}) as {
      target?: { name?: string; template?: { data?: Record<string, unknown> } };
      secretStoreRef?: { kind?: string; name?: string };
      data?: { secretKey?: string; remoteRef?: RemoteRef }[];
    };
    const secret = targetName(r);
    const store = `${spec.secretStoreRef?.kind ?? 'SecretStore'}/${spec.secretStoreRef?.name ?? ''}`;
    for (const d of spec.data ?? []) {
      // A key its template writes is the template's text, not the item as it is.
      const named = d.remoteRef && vaultField(d.remoteRef);
      if (!d.secretKey || !named || spec.target?.template?.data?.[d.secretKey] !== undefined) continue;
      items.set(`${namespaceOrDestination(repo, r) ?? ''}/${secret}/${d.secretKey}`, {
        store,
        key: named.item,
        ...(named.field ? { property: named.field } : {}),
      });
    }
  }
  return items;
});

/** The store item one key of a Secret is copied from, when an ExternalSecret of the repository copies it as it is. */
export function storeItemOf(repo: Repo, namespace: string | undefined, secret: string, key: string): StoreItem | undefined {
  return storeItems(repo).get(`${namespace ?? ''}/${secret}/${key}`);
}

/**
 * The Secrets a SecretStore or ClusterSecretStore authenticates with: every `*SecretRef` under its provider
 * (External Secrets' SecretKeySelector: a name, a key, and for a ClusterSecretStore the namespace it is read in;
 * onepasswordSDK's serviceAccountSecretRef, AWS's accessKeyIDSecretRef...), each with its key. A SecretStore's are read
 * in its own namespace; a ClusterSecretStore's without a namespace are left out, since External Secrets reads those
 * nowhere. Without the Secret the store cannot authenticate: it is not ready, and no ExternalSecret through it is written.
 */
export function storeSecretRefs(repo: Repo, resources: readonly Resource[]): PodRef[] {
  const refs: PodRef[] = [];
  for (const r of resources.filter((x) => (x.kind === 'SecretStore' || x.kind === 'ClusterSecretStore') && x.apiVersion.startsWith('external-secrets.io/'))) {
    const walk = (node: unknown, path: Path): void => {
      if (!isMap(node)) return;
      for (const [field, value] of Object.entries(node)) {
        const name = isMap(value) ? str(value.name) : undefined;
        if (/SecretRef$/.test(field) && isMap(value) && name) {
          const namespace = r.kind === 'SecretStore' ? namespaceOrDestination(repo, r) : str(value.namespace);
          const key = str(value.key);
          if (namespace)
            refs.push({
              resource: r,
              path: [...path, field, 'name'],
              kind: 'Secret',
              name,
              namespace,
              optional: false,
              ...(key ? { keys: [{ key, path: [...path, field, 'key'] }] } : {}),
            });
        } else walk(value, [...path, field]);
      }
    };
    walk(dig(r.object, ['spec', 'provider']), ['spec', 'provider']);
  }
  return refs;
}

/** A remote ref of an ExternalSecret's `data[]`, as External Secrets' API holds it. */
export interface RemoteRef {
  key?: unknown;
  property?: unknown;
  version?: unknown;
}

/**
 * The item and field a remote ref names in a 1Password vault: the 1Password SDK provider of External Secrets (2.9's
 * `GetSecret`) resolves `op://<vault>/<key>` and reads no property, so its key is `item/[section/]field`; the Connect
 * provider's form, an item in `key` and its field in `property`, is read here too, for the store-items table.
 */
export function vaultField(ref: RemoteRef): { item: string; field?: string } | undefined {
  const key = typeof ref.key === 'string' ? ref.key.replace(/^\//, '') : '';
  if (!key) return undefined;
  if (typeof ref.property === 'string' && ref.property) return { item: key, field: ref.property };
  const at = key.indexOf('/');
  return at < 0 ? { item: key } : { item: key.slice(0, at), field: key.slice(at + 1).replace(/\?.*$/, '') };
}

/** The characters 1Password's secret reference syntax takes in a vault, item, section or field name (else its ID). */
const REFERENCE_NAME = /^[A-Za-z0-9_. -]+$/;

/**
 * Why 1Password's SDK refuses the secret reference `op://<vault>/<key>` (its syntax: a vault, an item, an optional
 * section and a field, each named with letters, digits, `-`, `_`, `.` and spaces, or by its ID; query parameters
 * such as `?attribute=otp` after the field are not judged), or undefined.
 */
export function onePasswordReferenceProblem(vault: string, key: string): string | undefined {
  const path = key.replace(/^\//, '').replace(/\?.*$/, '');
  const parts = path.split('/');
  if (parts.length < 2) return `it names an item and no field`;
  if (parts.length > 3) return `it has ${parts.length} parts after the vault, where a reference has an item, an optional section and a field`;
  const bad = [vault, ...parts].find((p) => !REFERENCE_NAME.test(p));
  if (bad !== undefined)
    return bad === '' ? 'it has an empty part' : `"${bad}" holds a character secret references do not take (letters, digits, -, _, . and spaces; else the ID)`;
  return undefined;
}

/** The 1Password SDK store an ExternalSecret reads (its vault; undefined for another provider, or an environment's). */
export function onePasswordVaultOf(repo: Repo, resources: readonly Resource[], es: Resource): string | undefined {
  const ref = (dig(es.object, ['spec', 'secretStoreRef']) ?? {}) as { kind?: unknown; name?: unknown };
  const kind = ref.kind === 'ClusterSecretStore' ? 'ClusterSecretStore' : 'SecretStore';
  const namespace = namespaceOrDestination(repo, es);
  const store = resources.find(
    (r) =>
      r.kind === kind &&
      r.name === ref.name &&
      r.apiVersion.startsWith('external-secrets.io/') &&
      (kind === 'ClusterSecretStore' || namespaceOrDestination(repo, r) === namespace),
  );
  const vault = dig(store?.object, ['spec', 'provider', 'onepasswordSDK', 'vault']);
  return typeof vault === 'string' && vault !== '' ? vault : undefined;
}

/** The ExternalSecrets of `namespace` that write the Secret `name` (their target's name, else their own). */
export const externalSecretsWriting = (resources: readonly Resource[], namespace: string | undefined, name: string | undefined): Resource[] =>
  resources.filter((r) => r.kind === 'ExternalSecret' && r.namespace === namespace && (dig(r.object, ['spec', 'target', 'name']) ?? r.name) === name);

/**
 * The text a template entry holding no action writes, as External Secrets writes it: the text itself, a null one
 * empty (Go decodes it into the template's map of strings as ""). Undefined for an entry with an action (the store's
 * values decide it) or of another type.
 */
export function constantTemplateText(entry: unknown): string | undefined {
  if (entry === null) return '';
  return typeof entry === 'string' && !entry.includes('{{') ? entry : undefined;
}

/** The keys of `keys` an ExternalSecret writing Secret `name` gives an empty text in its template (no action in it, nothing). */
export function emptyTemplateKeys(resources: readonly Resource[], namespace: string | undefined, name: string | undefined, keys: readonly string[]) {
  return externalSecretsWriting(resources, namespace, name).flatMap((es) =>
    keys.filter((key) => constantTemplateText(dig(es.object, ['spec', 'target', 'template', 'data', key])) === '').map((key) => ({ es, key })),
  );
}

/**
 * The functions External Secrets v2.9.0's template engine (runtime/template/v2) defines besides text/template's
 * builtins: its own (tplFuncs) and the sprig map it vendors (sprig/functions.go genericMap: env, expandenv and getHostByName left out).
 */
const ESO_TEMPLATE_FUNCTIONS: ReadonlySet<string> = new Set([
  ...TEXT_TEMPLATE_BUILTINS,
  ...(
    'abbrev abbrevboth add add1 add1f addf adler32sum ago all any append atoi b32dec b32enc b64dec b64enc base ' +
    'bcrypt biggest buildCustomCert camelcase cat ceil certSANs chunk clean coalesce compact concat contains ' +
    'date dateInZone dateModify date_in_zone date_modify decryptAES deepCopy deepEqual default derivePassword ' +
    'dict dig dir div divf duration durationRound empty encryptAES ext fail filterCertChain filterPEM first ' +
    'float64 floor fromJson fromYaml fullPemToPkcs12 fullPemToPkcs12Pass genCA genCAWithKey genPrivateKey ' +
    'genSelfSignedCert genSelfSignedCertWithKey genSignedCert genSignedCertWithKey get has hasKey hasPrefix ' +
    'hasSuffix hello hexdec htmlDate htmlDateInZone htpasswd indent initial initials int int64 isAbs join ' +
    'jwkPrivateKeyPem jwkPublicKeyPem kebabcase keys kindIs kindOf last list lower max maxf merge mergeOverwrite ' +
    'min minf mod mul mulf mustAppend mustChunk mustCompact mustDateModify mustDeepCopy mustFirst mustFromJson ' +
    'mustHas mustInitial mustLast mustMerge mustMergeOverwrite mustPrepend mustRegexFind mustRegexFindAll ' +
    'mustRegexMatch mustRegexReplaceAll mustRegexReplaceAllLiteral mustRegexSplit mustRest mustReverse mustSlice ' +
    'mustToDate mustToJson mustToPrettyJson mustToRawJson mustUniq mustWithout must_date_modify nindent nospace ' +
    'now omit osBase osClean osDir osExt osIsAbs pemToPkcs12 pemToPkcs12Pass pemTruststoreToPKCS12 ' +
    'pemTruststoreToPKCS12Pass pick pkcs12cert pkcs12certPass pkcs12key pkcs12keyPass pluck plural prepend quote ' +
    'randAlpha randAlphaNum randAscii randBytes randInt randNumeric regexFind regexFindAll regexMatch ' +
    'regexQuoteMeta regexReplaceAll regexReplaceAllLiteral regexSplit repeat replace rest reverse round ' +
    'rsaDecrypt semver semverCompare seq set sha1sum sha256sum sha512sum shuffle slice snakecase sortAlpha split ' +
    'splitList splitn squote sub subf substr swapcase ternary title toDate toDecimal toJson toPrettyJson ' +
    'toRawJson toString toStrings toYaml trim trimAll trimPrefix trimSuffix trimall trunc tuple typeIs ' +
    'typeIsLike typeOf uniq unixEpoch unset until untilStep untitle upper urlJoin urlParse uuidv4 values without ' +
    'wrap wrapWith'
  ).split(' '),
]);

/**
 * Why External Secrets cannot parse an ExternalSecret template's entry `name` (text/template with missingkey=error, its
 * functions, the default delimiters), in Go's words; undefined where it parses. The sync then fails at that key, and
 * no Secret is written.
 */
export function templateParseProblem(name: string, text: string): string | undefined {
  return text.includes('{{') ? templateParseError(name, text, ESO_TEMPLATE_FUNCTIONS) : undefined;
}

/** The words that change what `.` is, or name other templates: a template holding one is not read here. */
const CONTEXT_WORDS = /\b(range|with|define|template|block)\b|\$/;

/**
 * The keys an ExternalSecret template (engine v2, Go's text/template over the secret's data) reads at its top
 * level: each `.key` that starts a field chain, and each `index . "key"`. External Secrets executes it with
 * missingkey=error, so a key its data does not give fails the sync, and no Secret is written. Undefined where the
 * template moves `.` or names other templates (range, with, a variable): not read here.
 */
export function templateKeysRead(text: string): string[] | undefined {
  const keys = new Set<string>();
  for (const [, inner] of text.matchAll(/\{\{-?([\s\S]*?)-?\}\}/g)) {
    // Quoted text read as an empty string: a dot or a word inside quotes is no field and no keyword.
    const action = inner!.replace(/"(?:[^"\\]|\\.)*"|`[^`]*`/g, '""');
    if (action.trimStart().startsWith('/*')) continue;
    if (CONTEXT_WORDS.test(action)) return undefined;
    for (const [, key] of inner!.matchAll(/\bindex\s+\.\s+"((?:[^"\\]|\\.)*)"/g)) keys.add(JSON.parse(`"${key!}"`) as string);
    // A field chain's first name: a dot after no name, call or index of its own (`.a.b` reads a, `(f).x` reads nothing).
    for (const [, key] of action.matchAll(/(?<![\w)\].])\.([A-Za-z_]\w*)/g)) keys.add(key!);
  }
  return [...keys];
}
