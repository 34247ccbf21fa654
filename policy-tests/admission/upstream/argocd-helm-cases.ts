/**
 * The repo-server's Helm and jsonnet tests (repository_test.go) read as data
 * and judged through the gate's render tier: each `GenerateManifest` call on a
 * chart or a jsonnet folder at a path of the test's repository
 * (`newService(t, "<dir>")`), with the source the test builds (value files,
 * values and valuesObject, parameters, file parameters, release name,
 * Kubernetes version, missing value files ignored or not; jsonnet's external
 * variables, top-level arguments and library paths), rendered by the gate in a
 * scratch repository whose root is the test's, and the assertions that
 * follow: an error or none, how many manifests, and the replicas of a named
 * Deployment. A chart from a chart repository (the tests
 * mock Helm's client), a value file at a URL, or a source this reader cannot
 * build is counted apart, never guessed.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { loadRepo } from '../../model/repository/repo.ts';
import { renderRepo } from '../../render/render.ts';
import { pinnedBinaries } from '../../render/tools.ts';
import { GoParser, GoUnsupported, tokenize } from './go-literals.ts';

export interface HelmCase {
  test: string;
  /** The test's repository root, relative to reposerver/repository. */
  serviceRoot: string;
  appName: string;
  source: Record<string, unknown>;
  expect: { error?: boolean; replicas?: { name: string; count: number }; manifests?: number; image?: { name: string; image: string } };
  notApplicable?: string;
  /** The URL schemes the request allows a value file (its HelmOptions; none where it sends none), for a source that names a URL. */
  valuesFileSchemes?: string[];
  /** The request is one source of several (HasMultipleSources): the Application lists it under `sources`. */
  multiple?: boolean;
}

const REPO_URL = 'https://github.com/example/conformance.git';

/** A Go source literal as data, once the spellings this reader follows are plain: RawExtension bytes as their string; `vars` the unit's string variables. */
function sourceLiteral(text: string, vars: ReadonlyMap<string, string>): Record<string, unknown> {
  const plain = text
    .replace(/&runtime\.RawExtension\{Raw: \[\]byte\((\x60[^\x60]*\x60|"(?:[^"\\]|\\.)*")\)\}/g, '$1')
    .replace(/&v1alpha1\./g, 'v1alpha1.')
    .replace(/ptr\.To\((true|false)\)/g, '$1');
  const env = {
    value: (n: string): unknown => {
      if (vars.has(n)) return vars.get(n);
      throw new GoUnsupported(n);
    },
    call: (n: string): unknown => {
      throw new GoUnsupported(n);
    },
  };
  return new GoParser(tokenize(plain), env).expr() as Record<string, unknown>;
}

/** The block of a composite literal that starts at `open` (a `{`), braces balanced outside strings. */
function literalAt(text: string, start: number): string {
  const open = text.indexOf('{', start);
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\x60') i = text.indexOf('\x60', i + 1);
    else if (c === '"') i += (/"(?:[^"\\\n]|\\.)*"/.exec(text.slice(i))?.[0].length ?? 1) - 1;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return text.slice(start);
}

/** Go's field names to the Application's: ValueFiles to valueFiles, and so on. */
function yamlKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(yamlKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => k !== '@type')
      // TLAs is the one field whose JSON name is not its Go name with a small first letter.
      .map(([k, v]) => [k === 'TLAs' ? 'tlas' : k[0]!.toLowerCase() + k.slice(1), yamlKeys(v)]),
  );
}

/** Each GenerateManifest call of a unit, with the service, source and assertions in force at it. */
export function helmCases(test: string, body: string): HelmCase[] {
  const calls = [...body.matchAll(/GenerateManifest\(t\.Context\(\), (&apiclient\.ManifestRequest\{|&?\w+\))/g)];
  return calls.map((call, i) => {
    const before = body.slice(0, call.index);
    const after = body.slice(call.index, calls[i + 1]?.index ?? body.length);
    const serviceRoot = [...before.matchAll(/newService\(t, "([^"]+)"\)/g)].at(-1)?.[1];
    const name = `${test}${calls.length > 1 ? `#${i + 1}` : ''}`;
    const expect: HelmCase['expect'] = {};
    if (/require\.NoError\(t, err\)/.test(after)) expect.error = false;
    if (/(?:require|assert)\.(?:Error|ErrorContains)\(t, err/.test(after)) expect.error = true;
    const deployment = /GetName\(\) == "([^"]+)"[\s\S]*?assert\.Equal\(t, int32\((\d+)\), \*dep\.Spec\.Replicas\)/.exec(after);
    if (deployment) expect.replicas = { name: deployment[1]!, count: Number(deployment[2]) };
    const manifests = /assert\.Len\(t, \w+\.Manifests, (\d+)\)/.exec(after);
    if (manifests) expect.manifests = Number(manifests[1]);
    if (/assert\.Empty\(t, \w+\.Manifests\)/.test(after)) expect.manifests = 0;
    const image = /resourceByKindName\["Deployment\/([^"]+)"\][\s\S]*?assert\.Equal\(t, "([^"]+)", image\)/.exec(after);
    if (image) expect.image = { name: image[1]!, image: image[2]! };
    const base = {
      test: name,
      serviceRoot: serviceRoot ?? '',
      appName: /AppName:\s*"([^"]*)"/.exec(before + after)?.[1] || 'release',
      source: {},
      expect,
      ...(/HasMultipleSources:\s*true/.test(after) ? { multiple: true } : {}),
    };
    const at = Math.max(
      before.lastIndexOf('ApplicationSource: &v1alpha1.ApplicationSource{'),
      before.lastIndexOf(':= &v1alpha1.ApplicationSource{'),
      call[1]!.startsWith('&') ? -1 : -1,
    );
    const inline = call[1]!.startsWith('&') ? after.indexOf('ApplicationSource: &v1alpha1.ApplicationSource{') : -1;
    const text =
      inline !== -1 ? after.slice(inline + 'ApplicationSource: &'.length) : at !== -1 ? before.slice(before.indexOf('v1alpha1.ApplicationSource{', at)) : '';
    if (!serviceRoot || !text) return { ...base, notApplicable: 'no service root or source this reader follows' };
    let source: Record<string, unknown>;
    try {
      const vars = new Map([...body.matchAll(/(\w+) := ("(?:[^"\\]|\\.)*")\n/g)].map((m) => [m[1]!, JSON.parse(m[2]!) as string]));
      // runWithTempTestdata hands its function a copy of testdata/app-parameters/<folder>, under the service's root.
      const copied = /runWithTempTestdata\(t, "([^"]+)", func\(t \*testing\.T, path string\)/.exec(body)?.[1];
      if (copied) vars.set('path', `testdata/app-parameters/${copied}`);
      source = yamlKeys(sourceLiteral(literalAt(text, 0), vars)) as Record<string, unknown>;
    } catch (err) {
      return { ...base, notApplicable: `its source is not a literal this reader follows (${(err as Error).message})` };
    }
    // A field the test sets on its request between two calls.
    for (const m of before.matchAll(/\w+\.ApplicationSource\.Helm\.(\w+) = (true|false)/g))
      source = { ...source, helm: { ...(source.helm as object), [m[1]![0]!.toLowerCase() + m[1]!.slice(1)]: m[2] === 'true' } };
    const helm = (source.helm ?? {}) as { valueFiles?: string[]; valuesObject?: unknown };
    // A RawExtension's bytes are YAML: the Application carries them as an object.
    if (typeof helm.valuesObject === 'string') source = { ...source, helm: { ...helm, valuesObject: parse(helm.valuesObject) as unknown } };
    // Go's zero value: an empty chart names none.
    if (source.chart === '') source = Object.fromEntries(Object.entries(source).filter(([k]) => k !== 'chart'));
    if (source.chart !== undefined) return { ...base, source, notApplicable: "a chart from a chart repository: the test mocks Helm's client" };
    // A URL Argo CD would fetch is beyond an offline gate; one whose scheme the request does not allow fails in both.
    const schemeOf = (v: string) => /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(v)?.[1]!.toLowerCase();
    const urls = (helm.valueFiles ?? []).filter((v) => schemeOf(v) !== undefined);
    if (urls.length > 0) {
      const listed = /HelmOptions:\s*&v1alpha1\.HelmOptions\{ValuesFileSchemes: \[\]string\{([^}]*)\}\}/.exec(after)?.[1];
      const schemes = listed ? [...listed.matchAll(/"([^"]*)"/g)].map((m) => m[1]!.toLowerCase()) : [];
      if (urls.some((v) => schemes.includes(schemeOf(v)!) && ['http', 'https', 'oci'].includes(schemeOf(v)!)))
        return { ...base, source, notApplicable: 'a value file at a URL Helm would fetch: the gate renders offline' };
      return { ...base, source, valuesFileSchemes: schemes };
    }
    if (source.helm === undefined && source.path === undefined) return { ...base, source, notApplicable: 'not a Helm or jsonnet source at a path' };
    if (base.multiple && source.path !== '' && source.ref === undefined)
      return { ...base, source, notApplicable: 'one source of several, whose others the request does not give' };
    return { ...base, source };
  });
}

/** Judges one case: the test's repository copied as the scratch repository's root, one Application, the gate's render tier. */
export async function judgeHelmCase(dir: string, c: HelmCase, env: NodeJS.ProcessEnv): Promise<{ ok: boolean; why: string; refusedSaying?: string }> {
  const root = mkdtempSync(join(tmpdir(), 'argocd-helm-case-'));
  try {
    cpSync(join(dir, c.serviceRoot), root, { recursive: true, verbatimSymlinks: true });
    const facts = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cluster-facts', namespace: 'argocd' },
      data: { kubernetesVersion: '1.36.3', repoURL: REPO_URL, revision: 'main' },
    };
    const source = { ...c.source, repoURL: REPO_URL, targetRevision: 'main', path: typeof c.source.path === 'string' ? c.source.path : '.' };
    const app = {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name: c.appName, namespace: 'argocd' },
      spec: {
        project: 'default',
        ...(c.multiple ? { sources: [source] } : { source }),
        destination: { server: 'https://kubernetes.default.svc', namespace: 'default' },
      },
    };
    mkdirSync(join(root, 'clusters/home'), { recursive: true });
    writeFileSync(join(root, 'clusters/home/cluster-facts.yaml'), stringify(facts));
    writeFileSync(join(root, 'clusters/home/conformance-app.yaml'), stringify(app));
    // The request's value file schemes, as argocd-cm gives them to Argo CD's requests.
    if (c.valuesFileSchemes) {
      mkdirSync(join(root, 'apps/platform/argocd/patches'), { recursive: true });
      const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'argocd-cm' }, data: { 'helm.valuesFileSchemes': c.valuesFileSchemes.join(', ') } };
      writeFileSync(join(root, 'apps/platform/argocd/patches/argocd-cm.yaml'), stringify(cm));
    }
    const repo = await loadRepo(root);
    const result = await renderRepo(repo, { builtinApiVersions: [], env, checkDeterminism: false });
    const render = result.renders[0];
    // A source the repo-server generates nothing for (a ref-only source of several) is one the gate renders nothing for.
    if (!render)
      return c.expect.manifests === 0 && c.expect.error !== true && repo.resources.every((r) => r.kind === 'Application' || r.name === 'cluster-facts')
        ? { ok: true, why: '' }
        : { ok: false, why: 'the gate renders nothing for this source' };
    const failed = render.status !== 'rendered';
    const problems: string[] = [];
    if (c.expect.error !== undefined && c.expect.error !== failed)
      problems.push(
        c.expect.error ? 'Argo CD fails the source; the gate renders it' : `Argo CD renders the source; the gate: ${render.message ?? render.status}`,
      );
    const want = c.expect.replicas;
    if (want && !failed) {
      const got = render.resources.find((r) => r.kind === 'Deployment' && r.name === want.name)?.object as { spec?: { replicas?: unknown } } | undefined;
      if (got?.spec?.replicas !== want.count)
        problems.push(`Deployment ${want.name}: Argo CD ${want.count} replicas, the gate ${JSON.stringify(got?.spec?.replicas ?? 'none')}`);
    }
    const wantImage = c.expect.image;
    if (wantImage && !failed) {
      const got = render.resources.find((r) => r.kind === 'Deployment' && r.name === wantImage.name)?.object as
        | { spec?: { template?: { spec?: { containers?: { image?: string }[] } } } }
        | undefined;
      const image = got?.spec?.template?.spec?.containers?.[0]?.image;
      if (image !== wantImage.image) problems.push(`Deployment ${wantImage.name}: Argo CD's image ${wantImage.image}, the gate's ${image ?? 'none'}`);
    }
    if (c.expect.manifests !== undefined && !failed && render.resources.length !== c.expect.manifests)
      problems.push(`Argo CD ${c.expect.manifests} manifests, the gate ${render.resources.length}`);
    // Where Argo CD reads outside the repository (a dependency beside it), the gate refuses on purpose and says so.
    const refusing = c.expect.error === false && failed && /outside the repository; the gate reads nothing there/.test(render.message ?? '');
    return {
      ok: problems.length === 0,
      why: problems.join('; '),
      ...(refusing ? { refusedSaying: `the gate refuses what Argo CD reads: ${render.message}` } : {}),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** The render tools the gate pins, in a render cache of its own: the cases never meet the repository's renders. */
export async function isolatedRenderEnv(env: NodeJS.ProcessEnv): Promise<{ env: NodeJS.ProcessEnv; dispose: () => void }> {
  const pinned = await pinnedBinaries(env);
  const cache = mkdtempSync(join(tmpdir(), 'argocd-helm-cache-'));
  return {
    env: { ...env, HOMELAB_CACHE_DIR: cache, HELM_BIN: env.HELM_BIN ?? pinned.helm, KUSTOMIZE_BIN: env.KUSTOMIZE_BIN ?? pinned.kubectl },
    dispose: () => rmSync(cache, { recursive: true, force: true }),
  };
}
