/**
 * The conformance command's Argo CD part: the gate's reading of a source held to Argo CD's own tests at the pinned
 * tag (gitops-engine's hooks and sync order, the impersonated account, symlinks and paths, AppProject permissions,
 * ApplicationSet templates, generators and validation, the built-in health scripts' tests, the repo-server's cases).
 */
import { existsSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { conformance, render } from '../policy-tests/index.ts';
import { percent, readText, report } from './lib/agreement-report.ts';

/** gitops-engine's hook tests in an argo-cd checkout, judged through the model's reading of hooks. */
function reportHooks(checkout: string, print: (t: string) => void): void {
  const dir = join(checkout, 'gitops-engine/pkg/sync/hook');
  // A checkout from before gitops-engine moved into argo-cd's repository has no copy of it.
  if (!existsSync(dir)) {
    print("gitops-engine's hook tests: not in this checkout\n");
    return;
  }
  const names = ['hook_test.go', 'delete_policy_test.go', 'helm/hook_test.go', 'helm/type_test.go', 'helm/delete_policy_test.go'];
  const { agreement, notFollowed } = conformance.hookTestAgreement(names.map((name) => ({ name, go: readText(join(dir, name)) })));
  report(`gitops-engine's hook tests (gitops-engine/pkg/sync/hook)${notFollowed.length ? `; ${notFollowed.length} not followed` : ''}`, agreement, print);
  for (const n of notFollowed) print(`  NOT FOLLOWED ${n}\n`);
  const sort = conformance.sortCases(readText(join(checkout, 'gitops-engine/pkg/sync/sync_tasks_test.go')));
  report("gitops-engine's sync order (gitops-engine/pkg/sync/sync_tasks_test.go)", conformance.sortAgreement(sort.cases), print);
  for (const u of sort.unread) print(`  NOT READ ${u.test}: ${u.why}\n`);
}

/** The repo-server's tests in an argo-cd checkout, judged; the figure is the last line. */
/** The account a sync impersonates: TestDeriveServiceAccountMatchingNamespaces and ...MatchingServers (controller/sync_test.go). */
function reportImpersonation(checkout: string, print: (t: string) => void): void {
  const file = join(checkout, 'controller/sync_test.go');
  if (!existsSync(file)) {
    print('Argo CD impersonation cases: controller/sync_test.go is not in this checkout\n');
    return;
  }
  const { cases, unread } = conformance.impersonationCases(readText(file));
  report("Argo CD's impersonated account (controller/sync_test.go)", conformance.impersonationAgreement(cases), print);
  for (const u of unread) print(`  NOT READ ${u.test}: ${u.why}\n`);
}

/** The symlinks the repo-server refuses before any source: util/app/path/path_test.go on its testdata folders. */
function reportSymlinks(checkout: string, print: (t: string) => void): void {
  const dir = join(checkout, 'util/app/path');
  if (!existsSync(join(dir, 'path_test.go'))) {
    print("Argo CD's symlink cases: util/app/path/path_test.go is not in this checkout\n");
    return;
  }
  const { cases, unread } = conformance.symlinkCases(readText(join(dir, 'path_test.go')));
  report(
    "Argo CD's out-of-bounds symlinks (util/app/path/path_test.go)",
    conformance.symlinkAgreement(cases, (folder) => linksUnder(join(dir, folder))),
    print,
  );
  for (const u of unread) print(`  NOT READ ${u.test}: ${u.why}\n`);
  const holds = (root: string, path: string) => {
    const at = join(dir, root, path);
    return { folder: existsSync(at) && statSync(at).isDirectory(), file: existsSync(at) && statSync(at).isFile() };
  };
  report(
    "Argo CD's source paths (util/app/path/path_test.go, Path)",
    conformance.pathAgreement(conformance.pathCases(readText(join(dir, 'path_test.go'))), holds),
    print,
  );
}

/** The symlinks under a folder, each by its path in the folder and the target it holds. */
function linksUnder(root: string): { path: string; target: string }[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isSymbolicLink())
    .map((e) => {
      const abs = join(e.parentPath, e.name);
      return { path: relative(root, abs).split(sep).join('/'), target: readlinkSync(abs) };
    });
}

/** What an AppProject permits: pkg/apis/application/v1alpha1/types_test.go and util/argo/argo_test.go. */
function reportProjects(checkout: string, print: (t: string) => void): void {
  const [types, argo] = ['pkg/apis/application/v1alpha1/types_test.go', 'util/argo/argo_test.go'].map((f) => join(checkout, f));
  if (!existsSync(types!) || !existsSync(argo!)) {
    print("Argo CD's project cases: types_test.go or argo_test.go is not in this checkout\n");
    return;
  }
  const { agreement, notFollowed } = conformance.projectAgreement(readText(types!), readText(argo!));
  report("Argo CD's AppProject permissions (types_test.go, argo_test.go)", agreement, print);
  for (const n of notFollowed) print(`  NOT FOLLOWED ${n}\n`);
}

/** An ApplicationSet's template rendering: TestRenderTemplateParams and ...GoTemplate (applicationset/utils/utils_test.go). */
async function reportApplicationSets(checkout: string, print: (t: string) => void): Promise<void> {
  const file = join(checkout, 'applicationset/utils/utils_test.go');
  if (!existsSync(file)) {
    print("Argo CD's ApplicationSet template cases: applicationset/utils/utils_test.go is not in this checkout\n");
    return;
  }
  const { cases, unread } = conformance.applicationSetTemplateCases(readText(file));
  const a = await conformance.applicationSetTemplateAgreement(cases, (jobs) => render.renderGoTemplates(jobs));
  report("Argo CD's ApplicationSet template rendering (applicationset/utils/utils_test.go)", a, print);
  for (const d of a.declinedByDesign) print(`  DECLINED BY DESIGN ${d.test}: ${d.why}\n`);
  for (const u of unread) print(`  NOT READ ${u.test}: ${u.why}\n`);
  const generators = conformance.generatorCases(
    readText(join(checkout, 'applicationset/generators/git_test.go')),
    readText(join(checkout, 'applicationset/generators/list_test.go')),
  );
  report(
    "Argo CD's ApplicationSet git and list generators (applicationset/generators)",
    await conformance.generatorAgreement(generators.cases, (jobs) => render.renderGoTemplates(jobs)),
    print,
  );
  for (const u of generators.unread) print(`  NOT READ ${u.test}: ${u.why}\n`);
  const controller = join(checkout, 'applicationset/controllers/applicationset_controller_test.go');
  if (!existsSync(controller)) return;
  const validation = conformance.appSetValidationCases(readText(controller));
  report(
    "Argo CD's ApplicationSet controller's refusals (applicationset/controllers, TestValidateGeneratedApplications)",
    conformance.appSetValidationAgreement(validation.cases),
    print,
  );
  for (const u of validation.unread) print(`  NOT READ ${u.test}: ${u.why}\n`);
  const patchTests = join(checkout, 'applicationset/controllers/template/patch_test.go');
  if (existsSync(patchTests)) {
    const patches = conformance.templatePatchCases(readText(patchTests));
    report(
      "Argo CD's templatePatch cases (applicationset/controllers/template/patch_test.go)",
      conformance.templatePatchAgreement(patches.cases, patches.unread),
      print,
    );
  }
}

/** Every built-in health script's folder under resource_customizations, as the reader takes it. */
function healthScriptDirs(root: string): { dir: string; script: string; testYaml: string; read(path: string): string | undefined }[] {
  const out: { dir: string; script: string; testYaml: string; read(path: string): string | undefined }[] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(at).sort()) {
      const full = join(at, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name === 'health.lua')
        out.push({
          dir: relative(root, at).split(sep).join('/'),
          script: readText(full),
          testYaml: existsSync(join(at, 'health_test.yaml')) ? readText(join(at, 'health_test.yaml')) : 'tests: []',
          read: (path) => (existsSync(join(at, path)) ? readText(join(at, path)) : undefined),
        });
    }
  };
  walk(root);
  return out;
}

/** Argo CD's built-in health scripts on their own tests, run by the gate's Lua runner. */
function reportHealthScripts(checkout: string, print: (t: string) => void): void {
  const root = join(checkout, 'resource_customizations');
  if (!existsSync(root)) return print('Argo CD health scripts: resource_customizations is not in this checkout\n');
  const { cases, unread } = conformance.healthCases(healthScriptDirs(root));
  report(
    "Argo CD's health scripts on their own tests (resource_customizations/*/*/health_test.yaml, util/lua/health_test.go)",
    conformance.healthAgreement(cases, unread),
    print,
  );
}

export async function reportRepoServer(checkout: string, print: (t: string) => void): Promise<void> {
  reportHooks(checkout, print);
  reportHealthScripts(checkout, print);
  reportImpersonation(checkout, print);
  reportSymlinks(checkout, print);
  reportProjects(checkout, print);
  await reportApplicationSets(checkout, print);
  const dir = join(checkout, 'reposerver/repository');
  const a = await conformance.repoServerAgreement(dir, conformance.repoServerCases(readText(join(dir, 'repository_test.go')), dir));
  report('Argo CD repo-server cases (reposerver/repository/repository_test.go)', a, print);
  for (const r of a.refusedByDesign) print(`  REFUSED BY DESIGN ${r.test}: ${r.why}\n`);
  for (const n of a.notApplicable) print(`  NOT APPLICABLE ${n.test}: ${n.why}\n`);
  print(
    `Argo CD repo-server cases: ${a.agree}/${a.total} applicable agree (${percent(a.agree, a.total)}); ${a.refusedByDesign.length} refused by design, ${a.notApplicable.length} not applicable\n`,
  );
}
