/**
 * A directory source's jsonnet, evaluated with the machine's real jsonnet as Argo CD's repo-server evaluates it:
 * library paths, external variables and top-level arguments with the build environment substituted, an array or one
 * object applied (a null skipped), argocd-cm's `jsonnet.enable`; and under a hostile pull request, nothing outside
 * the repository read (an absolute import, one that climbs out, a symlink out, a library path out).
 */
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaLayer } from '../../gate/pipeline.ts';
import { loadRepo } from '../../model/repository/repo.ts';
import { jsonnetDocuments } from '../../render/jsonnet.ts';
import { renderRepo } from '../../render/render.ts';
import { toolEnv } from '../../../test-support/chart-repo.ts';
import { installed } from '../../../test-support/exec.ts';
import { skipForMissing } from '../../../test-support/missing-tool.ts';
import { fixtureRepo, repoApp, type FixtureRepo } from '../../../test-support/render-fixtures.ts';

const missing = skipForMissing((await installed('jsonnet')) ? [] : ['jsonnet'], 'jsonnet rendering');
let env: NodeJS.ProcessEnv;
let cache: string;
let outsideDir: string;
const SECRET = 'PLANTED-OUTSIDE-THE-CHECKOUT';

beforeAll(async () => {
  cache = mkdtempSync(join(tmpdir(), 'jsonnet-cache-'));
  env = await toolEnv({ HOMELAB_CACHE_DIR: cache });
  outsideDir = mkdtempSync(join(tmpdir(), 'jsonnet-outside-'));
  writeFileSync(join(outsideDir, 'secret.libsonnet'), `{ token: '${SECRET}' }\n`);
});

afterAll(() => {
  for (const dir of [cache, outsideDir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

async function renderAll(repo: FixtureRepo, extra: NodeJS.ProcessEnv = {}) {
  const layer = await schemaLayer();
  const { renders } = await renderRepo(await loadRepo(repo.root), { builtinApiVersions: layer.builtinApiVersions(), env: { ...env, ...extra } });
  return renders;
}

/** Argo CD's own test data (reposerver/repository/testdata/jsonnet), written as this repository would hold it. */
function guestbook(repo: FixtureRepo, directory: string): void {
  repo.write('apps/demo/application.yaml', repoApp('demo', `    path: apps/demo/manifests\n    directory:\n${directory}`));
  repo.write(
    'apps/demo/manifests/guestbook-ui.jsonnet',
    `local service = import 'nested/service.libsonnet';
local params = import 'params.libsonnet';

function(tlaString, tlaCode)
  [
    service.new(params),
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: params.name, labels: { tla: tlaString, code: tlaCode, ext: std.extVar('extVarString'), app: std.extVar('app') } },
    },
    null,
  ]
`,
  );
  repo.write('apps/demo/manifests/params.libsonnet', "{ name: 'guestbook-ui', servicePort: 80 }\n");
  repo.write('apps/demo/manifests/config.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\n');
  repo.write(
    'lib/vendor/nested/service.libsonnet',
    "local new(params) = { apiVersion: 'v1', kind: 'Service', metadata: { name: params.name }, spec: { ports: [{ port: params.servicePort }] } };\n{ new:: new }\n",
  );
}

const OPTIONS = `      jsonnet:
        libs: [lib/vendor]
        extVars: [{name: extVarString, value: extVarString}, {name: app, value: $ARGOCD_APP_NAME}]
        tlas: [{name: tlaString, value: tlaString}, {name: tlaCode, value: '"tlaCode"', code: true}]
`;

describe.skipIf(missing)('jsonnet: what Argo CD evaluates is rendered and judged', () => {
  it("evaluates each .jsonnet file with its library paths, variables and build environment, skipping a null, beside the loader's YAML", async () => {
    const repo = fixtureRepo();
    guestbook(repo, OPTIONS);
    const [render] = await renderAll(repo);
    expect(render).toMatchObject({ status: 'rendered', label: 'jsonnet in apps/demo/manifests' });
    expect(render!.resources.map((r) => `${r.kind}/${r.name}`)).toEqual(['Service/guestbook-ui', 'Deployment/guestbook-ui']);
    expect((render!.resources[1]!.object.metadata as { labels: unknown }).labels).toEqual({
      tla: 'tlaString',
      code: 'tlaCode',
      ext: 'extVarString',
      app: 'demo',
    });
    // A finding on what it yields points into the code that spelt it: the one literal of its value, the one field of
    // its key (in a library file too), else the file's first line.
    const [service, deployment] = render!.resources;
    expect(service!.positions.at(['metadata', 'name'], 'value')).toMatchObject({ file: 'apps/demo/manifests/params.libsonnet', line: 1 });
    expect(deployment!.positions.at(['metadata', 'labels', 'tla'], 'value')).toMatchObject({ file: 'apps/demo/manifests/guestbook-ui.jsonnet', line: 10 });
    expect(deployment!.positions.at(['metadata'], 'value')).toMatchObject({ file: 'apps/demo/manifests/guestbook-ui.jsonnet', line: 1 });
  });

  it('fails as Argo CD fails: an evaluation error, output that is no object, a library path out of the repository', async () => {
    const repo = fixtureRepo();
    guestbook(repo, OPTIONS.replace('{name: tlaString, value: tlaString}, ', ''));
    expect((await renderAll(repo))[0]).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/^Failed to evaluate jsonnet "guestbook-ui.jsonnet": .*tlaString/),
    });
    guestbook(repo, '      jsonnet:\n        libs: [../../outside]\n');
    expect((await renderAll(repo))[0]).toMatchObject({ status: 'failed', message: "file '../../outside' resolved to outside repository root" });
    repo.write('apps/demo/application.yaml', repoApp('demo', '    path: apps/demo/manifests'));
    repo.write('apps/demo/manifests/guestbook-ui.jsonnet', "[{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }, 'stray']\n");
    expect((await renderAll(repo))[0]).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/^Failed to unmarshal generated json "guestbook-ui.jsonnet": an element is "stray"/),
    });
  });

  it("passes over a jsonnet file that holds Argo CD's skip marker, as its walk does", async () => {
    const repo = fixtureRepo();
    guestbook(repo, OPTIONS);
    repo.write('apps/demo/manifests/draft.jsonnet', "// +argocd:skip-file-rendering\n{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'draft' } }\n");
    const [render] = await renderAll(repo);
    expect(render!.resources.map((r) => r.name)).toEqual(['guestbook-ui', 'guestbook-ui']);
  });

  it("renders nothing where argocd-cm sets jsonnet.enable to anything but true: Argo CD's walk passes over the files", async () => {
    const repo = fixtureRepo();
    guestbook(repo, OPTIONS);
    repo.write(
      'apps/platform/argocd/patches/argocd-cm.yaml',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\ndata:\n  jsonnet.enable: "false"\n',
    );
    expect(await renderAll(repo)).toEqual([]);
  });

  it('is not rendered, and says why, with no jsonnet on the machine or a variable that names the revision', async () => {
    const repo = fixtureRepo();
    guestbook(repo, OPTIONS);
    expect((await renderAll(repo, { JSONNET_BIN: join(outsideDir, 'no-such-jsonnet') }))[0]).toMatchObject({
      status: 'not-rendered',
      message: expect.stringMatching(/jsonnet/),
    });
    guestbook(repo, OPTIONS.replace('$ARGOCD_APP_NAME', '$ARGOCD_APP_REVISION'));
    expect((await renderAll(repo))[0]).toMatchObject({ status: 'not-rendered', message: expect.stringMatching(/external variable app names the revision/) });
  });
});

describe.skipIf(missing)('jsonnet under a hostile pull request: nothing outside the repository is read', () => {
  const hostile: [string, (repo: FixtureRepo) => void, RegExp][] = [
    [
      'an absolute import',
      (repo) => repo.write('apps/demo/manifests/steal.jsonnet', `(import '${outsideDir}/secret.libsonnet')\n`),
      /imports ".*secret.libsonnet", which go-jsonnet looks up outside/,
    ],
    [
      'an import that climbs out',
      (repo) => repo.write('apps/demo/manifests/steal.jsonnet', `local s = importstr '../../../../../../../../../../..${outsideDir}/secret.libsonnet';\n{}\n`),
      /importstrs .*outside the repository/,
    ],
    [
      'a symlink out',
      (repo) => {
        symlinkSync(join(outsideDir, 'secret.libsonnet'), join(repo.root, 'apps/demo/manifests/link.libsonnet'));
        repo.write('apps/demo/manifests/steal.jsonnet', "import 'link.libsonnet'\n");
      },
      /link\.libsonnet resolves outside .* \(a symlink to .*secret\.libsonnet\); Argo CD refuses it/,
    ],
    [
      'code in a variable that imports',
      (repo) => guestbook(repo, OPTIONS.replace(`'"tlaCode"'`, `"import 'x.libsonnet'"`)),
      /is code that imports "x.libsonnet"/,
    ],
  ];
  it('an evaluation that eats memory is stopped at the render memory limit, in one line', async () => {
    const repo = fixtureRepo();
    guestbook(repo, OPTIONS);
    repo.write('apps/demo/manifests/greedy.jsonnet', 'std.length(std.makeArray(10000000, function(i) { a: i }))\n');
    const [render] = await renderAll(repo, { HOMELAB_RENDER_MAX_MEMORY_MIB: '64' });
    expect(render).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(
        /^jsonnet needed more than 64 MiB evaluating apps\/demo\/manifests\/greedy\.jsonnet, the render memory limit \(HOMELAB_RENDER_MAX_MEMORY_MIB\)/,
      ),
    });
  });

  it.each(hostile)('%s is refused before jsonnet runs, and the secret is in no message', async (_, plant, message) => {
    const repo = fixtureRepo();
    guestbook(repo, OPTIONS);
    plant(repo);
    const [render] = await renderAll(repo);
    expect(render!.status).not.toBe('rendered');
    expect(render!.message).toMatch(message);
    expect(JSON.stringify(render)).not.toContain(SECRET);
  });
});

describe("jsonnetDocuments: the output as Argo CD's findManifests reads it", () => {
  it('takes an array of objects (nulls skipped), one object, or null', () => {
    expect(jsonnetDocuments('[{"kind":"A"},null,{"kind":"B"}]', 'a.jsonnet')).toBe(
      '---\n# Source: a.jsonnet\n{"kind":"A"}\n---\n# Source: a.jsonnet\n{"kind":"B"}\n',
    );
    expect(jsonnetDocuments('{"kind":"A"}', 'a.jsonnet')).toBe('---\n# Source: a.jsonnet\n{"kind":"A"}\n');
    expect(jsonnetDocuments('null', 'a.jsonnet')).toBe('');
    expect(() => jsonnetDocuments('"text"', 'dir/a.jsonnet')).toThrow(/^Failed to unmarshal generated json "a.jsonnet": the result is "text"/);
  });
});
