/**
 * The values a chart receives through a wrapper chart of the repository that depends on it (model/helm/chart-values.ts):
 * what the checks that read a chart's values read, as Helm hands them on: the wrapper's values.yaml, then its value
 * files and what the Application carries, each under the dependency's key (its alias, else its name).
 */
import { describe, expect, it } from 'vitest';
import { chartValues } from '../../model/helm/chart-values.ts';
import { fetchedDependencies } from '../../model/helm/chart-dependencies.ts';
import { loadRepo } from '../../model/repository/repo.ts';
import { oneMinorAtATime } from '../../model/argocd/app-declarations.ts';
import { fixtureRepo, repoApp } from '../../../test-support/render-fixtures.ts';

function wrapper(dependency: string) {
  const repo = fixtureRepo();
  repo.write(
    'apps/probe/chart/Chart.yaml',
    `apiVersion: v2\nname: probe\nversion: 1.0.0\ndependencies:\n  - name: prometheus-blackbox-exporter\n    version: 11.17.2\n    repository: https://prometheus-community.github.io/helm-charts\n${dependency}`,
  );
  repo.write('apps/probe/chart/values.yaml', 'exporter:\n  replicas: 2\nprometheus-blackbox-exporter:\n  replicas: 1\n  config:\n    modules: {}\n');
  repo.write('apps/probe/chart/values-prod.yaml', 'prometheus-blackbox-exporter:\n  replicas: 3\n');
  repo.write(
    'apps/probe/application.yaml',
    repoApp(
      'probe',
      `    path: apps/probe/chart\n    helm:\n      valueFiles: [values-prod.yaml]\n      valuesObject:\n        prometheus-blackbox-exporter:\n          dnsPolicy: None`,
    ),
  );
  return repo;
}

describe("a chart's values through a wrapper chart that depends on it", () => {
  it("are the wrapper's values under the dependency's name, layered as Helm layers them, a path landing on the line that set it", async () => {
    const repo = await loadRepo(wrapper('').root);
    const [values, ...more] = chartValues(repo, 'prometheus-blackbox-exporter');
    expect(more).toEqual([]);
    expect(values).toMatchObject({ appName: 'probe', values: { replicas: 3, config: { modules: {} }, dnsPolicy: 'None' } });
    // Each path lands where a person wrote it: the value file that set it last, the wrapper's values.yaml, the Application.
    expect(values!.source.positions.at(['replicas'], 'value')).toMatchObject({ file: 'apps/probe/chart/values-prod.yaml', line: 2 });
    expect(values!.source.positions.at(['config', 'modules'], 'value')).toMatchObject({ file: 'apps/probe/chart/values.yaml', line: 6 });
    expect(values!.source.positions.at(['dnsPolicy'], 'value')).toMatchObject({ file: 'apps/probe/application.yaml' });
    // A chart the wrapper does not depend on is not deployed by it.
    expect(chartValues(repo, 'exporter')).toEqual([]);
  });

  it('are under the alias where the dependency has one, as Helm scopes them', async () => {
    const fixture = wrapper('    alias: exporter\n');
    const repo = await loadRepo(fixture.root);
    expect(chartValues(repo, 'prometheus-blackbox-exporter').map((v) => v.values)).toEqual([{ replicas: 2 }]);
    // What the build fetches is the lock's, which records no alias: the key is still Chart.yaml's.
    fixture.write(
      'apps/probe/chart/Chart.lock',
      'dependencies:\n- name: prometheus-blackbox-exporter\n  repository: https://prometheus-community.github.io/helm-charts\n  version: 11.17.2\ndigest: sha256:0\n',
    );
    expect(fetchedDependencies(await loadRepo(fixture.root), 'apps/probe/chart')).toEqual([
      expect.objectContaining({
        name: 'prometheus-blackbox-exporter',
        key: 'exporter',
        file: 'apps/probe/chart/Chart.lock',
        ref: expect.objectContaining({ version: '11.17.2' }),
      }),
    ]);
  });

  it('are read once per dependency where two aliases deploy the chart twice, each under its own key, as the lock lists them in order', async () => {
    const fixture = wrapper(
      '    alias: probe-a\n  - name: prometheus-blackbox-exporter\n    version: 11.17.2\n    repository: https://prometheus-community.github.io/helm-charts\n    alias: probe-b\n',
    );
    fixture.write('apps/probe/chart/values.yaml', 'probe-a:\n  replicas: 1\nprobe-b:\n  replicas: 2\n');
    const entry = '- name: prometheus-blackbox-exporter\n  repository: https://prometheus-community.github.io/helm-charts\n  version: 11.17.2\n';
    fixture.write('apps/probe/chart/Chart.lock', `dependencies:\n${entry}${entry}digest: sha256:0\n`);
    const repo = await loadRepo(fixture.root);
    expect(fetchedDependencies(repo, 'apps/probe/chart').map((d) => [d.key, d.index])).toEqual([
      ['probe-a', 0],
      ['probe-b', 1],
    ]);
    // The application's layers set the chart's name, which no alias reads: each copy gets its own key's values alone.
    expect(chartValues(repo, 'prometheus-blackbox-exporter').map((v) => v.values)).toEqual([{ replicas: 1 }, { replicas: 2 }]);
  });

  it("takes the one-minor rule of the wrapper's Application for the dependencies its Chart.yaml fetches, where Renovate bumps them", async () => {
    const fixture = wrapper('  - name: local\n    version: 0.1.0\n    repository: file://../local\n');
    expect(oneMinorAtATime(await loadRepo(fixture.root))).toEqual(new Map());
    const why = "the exporter's guide starts from the minor before";
    fixture.write(
      'apps/probe/application.yaml',
      repoApp('probe', '    path: apps/probe/chart').replace(
        '  namespace: argocd\n',
        `  namespace: argocd\n  annotations:\n    gate.homelab-gitops/upgrades-one-minor-at-a-time: ${why}\n`,
      ),
    );
    expect(oneMinorAtATime(await loadRepo(fixture.root))).toEqual(
      new Map([
        ['apps/probe/application.yaml', why],
        ['apps/probe/chart/Chart.yaml', why],
      ]),
    );
  });
});
