/**
 * The Argo CD checks (checks/argocd/) of what Argo CD reads of an app before it syncs bite on a broken copy of the real
 * repository, and argocd-cm's settings and health scripts, the cluster Secrets and the controller's namespaces are
 * read as Argo CD reads them. How it syncs: argocd-sync-checks.test.ts; the projects' and the install's:
 * argocd-projects.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { describeMutations } from '../support/mutation-runner.ts';
import { onBrokenCopy, type RepoCopy } from '../support/helpers.ts';
import { ARGOCD_CM, inProject, platformAllows, PORTFOLIO_APP } from '../mutations/edits.ts';
import { argocdMutations } from '../mutations/argocd.ts';

describeMutations('platform checks (argocd.ts) bite on a broken copy of the real repository', argocdMutations);

describe('a destination only an ExternalSecret could declare is not judged', () => {
  it('says so, and does not refuse it', async () => {
    const { failed, notJudged } = await onBrokenCopy('argocd-destination', (copy) => {
      copy.write(
        'portfolio-api/deploy/remote-cluster.yaml',
        'apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata:\n  name: remote-cluster\n  namespace: argocd\nspec:\n  secretStoreRef:\n    kind: ClusterSecretStore\n    name: homelab\n  target:\n    name: remote-cluster\n    template:\n      metadata:\n        labels:\n          argocd.argoproj.io/secret-type: cluster\n  dataFrom:\n    - extract:\n        key: remote-cluster\n',
      );
      copy.edit(PORTFOLIO_APP, 0, (d) => d.setIn(['spec', 'destination', 'server'], 'https://192.168.1.50:6443'));
    });
    expect(failed).toEqual([]);
    expect(notJudged).toEqual([
      expect.stringMatching(
        /^Application portfolio-api: its destination names a cluster no Secret here declares, and an ExternalSecret writes cluster Secrets: error getting cluster by server/,
      ),
    ]);
  });
});

describe('an Application outside the controller namespace, as Argo CD admits it', () => {
  const outside = (namespaces: string, project?: (c: RepoCopy) => void) => (copy: RepoCopy) => {
    copy.write(
      'clusters/home/argocd-cmd-params.yaml',
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cmd-params-cm\n  namespace: argocd\ndata:\n  application.namespaces: "${namespaces}"\n`,
    );
    copy.edit(PORTFOLIO_APP, 0, (d) => {
      d.setIn(['metadata', 'namespace'], 'portfolio');
      d.setIn(['spec', 'syncPolicy', 'syncOptions'], d.createNode(['RespectIgnoreDifferences=true']));
      d.setIn(['spec', 'ignoreDifferences'], d.createNode([{ group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/replicas'] }]));
    });
    platformAllows('portfolio')(copy);
    project?.(copy);
  };
  const sourceNamespaces = (pattern: string) => inProject('portfolio', '  sourceRepos:\n', `  sourceNamespaces:\n    - "${pattern}"\n  sourceRepos:\n`);

  it('refuses one whose project does not name its namespace in sourceNamespaces (IsAppNamespacePermitted)', async () => {
    const { failed } = await onBrokenCopy('argocd-sync-policy', outside('portfolio'));
    expect(failed.map((f) => f.message)).toEqual([
      "Argo CD never syncs Application portfolio-api: application 'portfolio-api' in namespace 'portfolio' is not permitted to use project 'portfolio' (its sourceNamespaces do not name portfolio)",
    ]);
  });
  it('admits one both lists name, a glob or a /regex/, and says what RespectIgnoreDifferences keeps is not judged', async () => {
    const { failed, notJudged } = await onBrokenCopy('argocd-sync-policy', outside('team-*, /^port/', sourceNamespaces('portf*')));
    expect(failed).toEqual([]);
    expect(notJudged).toEqual([
      expect.stringMatching(
        /^Application portfolio-api keeps the cluster's value of what this ignoreDifferences entry names on apps\/Deployment \(RespectIgnoreDifferences=true\)/,
      ),
    ]);
  });
  it('refuses one application.namespaces does not name: the controller never processes it', async () => {
    const { failed } = await onBrokenCopy('argocd-sync-policy', outside('team-*', sourceNamespaces('*')));
    expect(failed.map((f) => f.message)).toEqual([
      expect.stringMatching(
        /^Application portfolio-api lives in namespace portfolio: .* of those application\.namespaces \(argocd-cmd-params-cm\) names \(team-\*\)$/,
      ),
    ]);
  });
});

describe("argocd-cm's kustomize settings, which the gate does not build with, are not judged", () => {
  it('build options for every source or one version, and another kustomize binary, each at its key', async () => {
    const { failed, notJudged } = await onBrokenCopy('argocd-render-tools', (copy) =>
      copy.edit(ARGOCD_CM, 0, (d) => {
        d.setIn(['data', 'kustomize.buildOptions'], '--enable-helm --enable-exec --load-restrictor LoadRestrictionsNone');
        d.setIn(['data', 'kustomize.path.v5.4.3'], '/custom-tools/kustomize_5_4_3');
        d.setIn(['data', 'kustomize.buildOptions.v5.4.3'], '--enable-alpha-plugins');
        d.setIn(['data', 'kustomize.buildOptions.empty'], ' ');
      }),
    );
    expect(failed).toEqual([]);
    expect(notJudged).toEqual([
      expect.stringMatching(
        /^argocd-cm's kustomize\.buildOptions: Argo CD builds every kustomize source with "--enable-exec", and the gate builds with its own kustomize and without that/,
      ),
      expect.stringMatching(
        /^argocd-cm's kustomize\.path\.v5\.4\.3: Argo CD runs \/custom-tools\/kustomize_5_4_3 for the kustomize sources that ask for version v5\.4\.3/,
      ),
      expect.stringMatching(
        /^argocd-cm's kustomize\.buildOptions\.v5\.4\.3: Argo CD builds the kustomize sources that ask for version v5\.4\.3 with "--enable-alpha-plugins"/,
      ),
    ]);
  });
});

describe("argocd-cm's health scripts for other kinds are run on the objects they cover", () => {
  it('passes a guarded script, and warns where one fails or says nothing on an object before its controller writes a status', async () => {
    const { failed, warned } = await onBrokenCopy('argocd-health-scripts', (copy) =>
      copy.edit(ARGOCD_CM, 0, (d) => {
        d.setIn(
          ['data', 'resource.customizations.health.apps_Deployment'],
          'hs = {status = "Progressing"}\nif obj.status ~= nil then hs.status = "Healthy" end\nreturn hs\n',
        );
        d.setIn(
          ['data', 'resource.customizations.health.Service'],
          'hs = {status = "Healthy"}\nif obj.status.loadBalancer == nil then hs.status = "Progressing" end\nreturn hs\n',
        );
        d.setIn(['data', 'resource.customizations.health.batch_*'], 'hs = {}\nif obj.status ~= nil then hs.status = "Healthy" end\nreturn hs\n');
      }),
    );
    expect(failed).toEqual([]);
    expect(warned).toEqual([
      expect.stringMatching(
        /^argocd-cm's resource\.customizations\.health\.Service fails on Service \S+ (and \d+ more )?as the repository writes them \(.*attempt to index a nil value/,
      ),
      expect.stringMatching(/^argocd-cm's resource\.customizations\.health\.batch_\* returns no status for (CronJob|Job) \S+/),
    ]);
  });
});

describe('a health script for every kind that never ends is run once to its bound, not once per object', () => {
  it('warns once, naming the first object and how many more, and fails nothing', async () => {
    const { failed, warned } = await onBrokenCopy('argocd-health-scripts', (copy) =>
      copy.edit(ARGOCD_CM, 0, (d) => d.setIn(['data', 'resource.customizations.health.all'], 'while true do end\n')),
    );
    expect(failed).toEqual([]);
    expect(warned).toEqual([
      expect.stringMatching(
        /^argocd-cm's resource\.customizations\.health\.all fails on \S+ \S+ and \d+ more as the repository writes them \(the script did not end\)/,
      ),
    ]);
  });
});

describe('a cluster Secret the repository declares, annotated skip-reconcile', () => {
  it('stops every Application that syncs to its cluster: said once, at the Secret, naming them', async () => {
    const { failed } = await onBrokenCopy('argocd-sync-policy', (copy) =>
      copy.write(
        'clusters/home/in-cluster.yaml',
        'apiVersion: v1\nkind: Secret\nmetadata:\n  name: in-cluster\n  namespace: argocd\n  labels:\n    argocd.argoproj.io/secret-type: cluster\n  annotations:\n    argocd.argoproj.io/skip-reconcile: "true"\nstringData:\n  name: in-cluster\n  server: https://kubernetes.default.svc\n',
      ),
    );
    expect(failed.map((f) => `${f.file}:${f.line} ${f.message}`)).toEqual([
      expect.stringMatching(
        /^clusters\/home\/in-cluster\.yaml:9 the cluster Secret of https:\/\/kubernetes\.default\.svc is annotated argocd\.argoproj\.io\/skip-reconcile: "true": Argo CD's controller processes no Application that syncs to it, so nothing of \d+ of them syncs \(/,
      ),
    ]);
  });
});

describe("a cluster Secret outside Argo CD's namespace", () => {
  // util/db lists cluster Secrets in the settings namespace alone: one elsewhere declares nothing, however it is labelled.
  const remote = (copy: RepoCopy) => {
    copy.write(
      'portfolio-api/deploy/remote-cluster.yaml',
      'apiVersion: v1\nkind: Secret\nmetadata:\n  name: remote-cluster\n  namespace: portfolio\n  labels:\n    argocd.argoproj.io/secret-type: cluster\n  annotations:\n    argocd.argoproj.io/skip-reconcile: "true"\nstringData:\n  name: remote\n  server: https://192.168.1.50:6443\n',
    );
    copy.edit(PORTFOLIO_APP, 0, (d) => d.setIn(['spec', 'destination', 'server'], 'https://192.168.1.50:6443'));
  };
  it('declares no cluster: an Application syncing to it fails, as Argo CD fails it', async () => {
    const { failed } = await onBrokenCopy('argocd-destination', remote);
    expect(failed.map((f) => `${f.file} ${f.message}`)).toEqual([
      expect.stringContaining(
        'portfolio-api/deploy/application.yaml Application portfolio-api: Argo CD refuses its destination, and never syncs it: Unable to get cluster: error getting cluster by server "https://192.168.1.50:6443"',
      ),
    ]);
  });
  it('stops nothing with skip-reconcile', async () => {
    const { failed } = await onBrokenCopy('argocd-sync-policy', remote);
    expect(failed).toEqual([]);
  });
});
