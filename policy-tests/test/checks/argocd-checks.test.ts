/** The Argo CD checks (checks/argocd/) bite on a broken copy of the real repository; the projects' and the install's: argocd-projects.test.ts. */
import { describe, expect, it } from 'vitest';
import { describeMutations } from '../support/mutation-runner.ts';
import { onBrokenCopy, type RepoCopy } from '../support/helpers.ts';
import { rmSync } from 'node:fs';
import { runGate } from '../../gate/gate.ts';
import { fixtureRepo, repoApp } from '../../../test-support/render-fixtures.ts';
import { ARGOCD_CM, inProject, platformAllows, PORTFOLIO_APP, PROJECTS } from '../mutations/edits.ts';
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

describe('a sync window that holds an app back part of the time is said, and signed commits are not judged', () => {
  it('warns with the share of the year the window leaves, and fails nothing', async () => {
    const { failed, warned, notJudged } = await onBrokenCopy('argocd-sync-windows', (copy) =>
      copy.edit(PROJECTS, 4, (d) => {
        // Working hours on weekdays, Berlin time: 10 of 24 hours on 5 of 7 days are held back.
        d.setIn(
          ['spec', 'syncWindows'],
          d.createNode([{ kind: 'deny', schedule: '0 8 * * 1-5', duration: '10h', timeZone: 'Europe/Berlin', namespaces: ['portfolio'] }]),
        );
        d.setIn(['spec', 'signatureKeys'], d.createNode([{ keyID: '4AEE18F83AFDEB23' }]));
      }),
    );
    expect(failed).toEqual([]);
    expect(warned).toEqual([
      'Application portfolio-api syncs on its own only outside deny window 0 ("0 8 * * 1-5" for 10h, Europe/Berlin), 70% of the time: a change merged while the windows hold it back reaches the cluster at the next moment they allow',
    ]);
    expect(notJudged).toEqual([expect.stringMatching(/^AppProject portfolio has Argo CD sync only commits signed by the keys its signatureKeys names/)]);
  });
});

describe('CreateNamespace=true on an app whose own manifests hold the Namespace creates none', () => {
  const ownNamespace = (copy: RepoCopy) => {
    copy.write('portfolio-api/deploy/namespace.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: portfolio-extra\n');
    copy.edit(PORTFOLIO_APP, 0, (d) => {
      d.setIn(['spec', 'destination', 'namespace'], 'portfolio-extra');
      d.setIn(['spec', 'syncPolicy', 'syncOptions'], d.createNode(['CreateNamespace=true']));
      d.setIn(['spec', 'syncPolicy', 'managedNamespaceMetadata'], d.createNode({ labels: { 'pod-security.kubernetes.io/enforce': 'privileged' } }));
    });
  };

  it("so the Namespace has one owner (argocd-will-sync sees no fight over it), and its managedNamespaceMetadata is never written: said at the metadata, naming the Namespace's file", async () => {
    const { failed } = await onBrokenCopy(['argocd-managed-namespace', 'argocd-will-sync'], ownNamespace);
    expect(failed.map((f) => `${f.check} ${f.file}: ${f.message}`)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^argocd-managed-namespace ${PORTFOLIO_APP}: Application portfolio-api: managedNamespaceMetadata is never written: its own manifests hold Namespace portfolio-extra \\(portfolio-api/deploy/namespace\\.yaml\\)`,
        ),
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

describe('an app that renders nothing, under an automated prune without allowEmpty', () => {
  it("is a warning: where it manages anything, Argo CD skips its sync ('auto-sync will wipe out all resources'); none with allowEmpty", async () => {
    const repo = fixtureRepo();
    try {
      repo.write('apps/web/chart/Chart.yaml', 'apiVersion: v2\nname: web\nversion: 1.0.0\n');
      repo.write('apps/web/chart/values.yaml', 'enabled: false\n');
      repo.write('apps/web/chart/templates/cm.yaml', '{{- if .Values.enabled }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n{{- end }}\n');
      const app = (automated: string) => repoApp('web', '    path: apps/web/chart', `  syncPolicy:\n    automated:\n${automated}      selfHeal: true\n`);
      const warned = async () =>
        (await runGate({ root: repo.root, cwd: repo.root, env: process.env })).warnings.filter((w) => w.check === 'argocd-sync-policy').map((w) => w.message);
      repo.write('apps/web/application.yaml', app('      prune: true\n'));
      expect(await warned()).toEqual([expect.stringMatching(/^Application web renders nothing: .*auto-sync will wipe out all resources/)]);
      repo.write('apps/web/application.yaml', app('      prune: true\n      allowEmpty: true\n'));
      expect(await warned()).toEqual([]);
    } finally {
      rmSync(repo.root, { recursive: true, force: true });
    }
  });
});
