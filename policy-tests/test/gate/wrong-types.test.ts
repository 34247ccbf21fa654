/**
 * A value of the wrong type in the real repository (a number where a list is written, a list where a map is, a null
 * in a list) is judged: the schema layer (or the check reading it) names it, and no check throws on it. Each case is
 * one a seeded fuzz of the repository's files found a check throwing on (2026-12-02 and 2026-12-03). A check that still throws is one finding in its name,
 * never a pass nor a stack trace, and the other checks still run.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Document } from 'yaml';
import { allFindings, runGate } from '../../gate/gate.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';
import { copyGateOptions, copyRepo, describeFindings } from '../support/helpers.ts';

const copy = copyRepo();
afterAll(() => copy.dispose());

const FAULT = /could not judge the repository/;

/** [file, document, path, value]: the value written in place of the node at path. */
const CASES: [string, number, (string | number)[], unknown][] = [
  ['apps/media/sonarr/ingress.yaml', 0, ['spec', 'rules'], 0],
  ['monitoring/kube-prometheus-stack/values.yaml', 0, ['alertmanager', 'config', 'route', 'routes'], [null]],
  ['apps/media/jellyseerr/settings/jellyseerr.yaml', 0, ['radarr'], [null]],
  ['apps/media/cleanuparr/settings/cleanuparr.yaml', 0, ['managers', 2, 'url'], 'a'.repeat(300)],
  ['apps/media/tautulli/deployment.yaml', 0, ['spec', 'template', 'spec', 'containers', 0, 'ports'], [null]],
  ['apps/media/gluetun/service.yaml', 0, ['spec', 'ports'], [null]],
  ['apps/media/unpackerr/deployment.yaml', 0, ['spec', 'template', 'spec', 'containers', 0, 'volumeMounts', 0], null],
  ['monitoring/kube-prometheus-stack/values.yaml', 0, ['alertmanager', 'config', 'receivers', 2, 'slack_configs'], [null]],
  ['apps/media/plex/deployment.yaml', 0, ['spec', 'template', 'spec', 'volumes', 1], null],
  ['monitoring/pve-exporter/externalsecret.yaml', 0, ['spec', 'target', 'template', 'data', 'pve.yml'], { a: null }],
  ['apps/platform/backups/restore-test.yaml', 0, ['spec', 'jobTemplate', 'spec', 'template', 'spec', 'containers', 0, 'volumeMounts'], [null]],
  ['apps/media/cleanuparr/ingress.yaml', 0, ['spec', 'rules', 0], null],
  ['apps/media/bazarr/deployment.yaml', 0, ['spec', 'template', 'spec', 'volumes'], 1.5],
  ['monitoring/alert-rules/network.yaml', 0, ['spec', 'groups', 0, 'rules'], true],
  ['monitoring/alert-rules/workloads.yaml', 0, ['spec', 'groups'], 1.5],
  ['apps/media/jellyseerr/ingress.yaml', 1, ['spec', 'dnsNames', 0], [null]],
  ['apps/platform/argocd/patches/argocd-cm.yaml', 0, ['data'], true],
  ['portfolio-api/deploy/deployment.yaml', 0, ['spec', 'template', 'spec', 'containers'], [null]],
  ['apps/media/tautulli/deployment.yaml', 0, ['spec', 'template', 'spec', 'containers'], 'x'],
  ['apps/media/jellyseerr/deployment.yaml', 0, ['spec', 'template', 'spec', 'containers', 0, 'volumeMounts'], 1.5],
  ['monitoring/snmp-exporter/externalsecret.yaml', 0, ['spec', 'data'], 99999999999],
  ['portfolio-api/deploy/servicemonitor.yaml', 0, ['spec', 'endpoints'], 99999999999],
  ['security/falco/networkpolicy.yaml', 0, ['spec', 'egress', 1, 'toPorts', 0, 'ports'], -1],
  ['monitoring/kube-prometheus-stack/values.yaml', 0, ['alertmanager', 'config', 'route', 'routes', 3, 'matchers'], 'x'],
  ['monitoring/blackbox-exporter/probes.yaml', 0, ['spec', 'targets', 'staticConfig', 'static', 3], {}],
  ['apps/media/jellyseerr/ingress.yaml', 0, ['spec', 'tls', 0, 'hosts'], 1.5],
  ['apps/media/sonarr/deployment.yaml', 0, ['spec', 'template', 'spec', 'containers', 1, 'ports'], {}],
  ['monitoring/alert-rules/watchdog.yaml', 0, ['spec', 'groups', 0, 'rules', 0], null],
  ['monitoring/alert-rules/watchdog.yaml', 0, ['spec', 'groups'], [null]],
  ['security/falco/networkpolicy.yaml', 0, ['spec', 'egress'], 1.5],
  ['apps/media/unpackerr/deployment.yaml', 0, ['spec', 'template', 'spec', 'containers', 0, 'env', 1], null],
  ['apps/media/jellyseerr/deployment.yaml', 0, ['spec', 'template'], []],
  ['apps/media/sonarr/deployment.yaml', 0, ['spec', 'template'], 99999999999],
  ['apps/media/jellyseerr/deployment.yaml', 0, ['spec', 'template', 'spec', 'containers', 0, 'volumeMounts', 0], { a: null }],
  ['apps/media/facts/media.yaml', 0, ['roles', 'subtitleManagers'], 'x'],
  ['clusters/home/projects.yaml', 0, ['spec', 'destinations', 0], null],
  ['apps/media/radarr-4k/deployment.yaml', 0, ['spec', 'template', 'spec', 'containers', 1, 'env'], 'x'],
  ['apps/platform/backups/etcd-backup.yaml', 0, ['spec', 'jobTemplate', 'spec', 'template', 'spec', 'containers', 0, 'env'], 99999999999],
  ['apps/platform/argocd/kustomization.yaml', 0, ['resources'], 1.5],
  ['apps/media/bazarr-4k/deployment.yaml', 0, ['spec', 'template', 'spec', 'containers', 0, 'volumeMounts', 2, 'mountPath'], true],
  ['apps/media/tdarr/deployment.yaml', 1, ['spec', 'template', 'spec', 'containers', 0, 'env', 4], null],
  ['apps/media/gluetun/deployment.yaml', 0, ['spec', 'template', 'spec', 'containers', 0, 'env', 2], null],
  ['security/falco/values.yaml', 0, ['mounts', 'volumeMounts', 0, 'mountPath'], [null]],
  ['apps/media/plex/deployment.yaml', 0, ['spec', 'template', 'spec', 'containers', 0, 'volumeMounts', 2, 'mountPath'], true],
];

describe('a value of the wrong type in the real repository', () => {
  it.each(CASES)('%s at %j: red, and no check throws', async (file, doc, path, value) => {
    copy.edit(file, doc, (d: Document) => d.setIn(path, d.createNode(value)));
    try {
      const result = await runGate(copyGateOptions(copy.root));
      const findings = allFindings(result);
      expect(
        findings.filter((f) => FAULT.test(f.message)),
        describeFindings(findings),
      ).toEqual([]);
      expect(findings.length + result.summary.invalid, describeFindings(findings)).toBeGreaterThan(0);
    } finally {
      copy.reset();
    }
  });
});

describe('a check that throws', () => {
  it('is one finding in its name, and the checks after it still run', async () => {
    const repo = await loadRepo(REPO_ROOT);
    const check = (id: string, run: PolicyCheck['run']): PolicyCheck => ({
      id,
      description: '',
      invariants: [],
      remediation: '',
      reads: { kinds: ['Namespace'] },
      exemptible: false,
      run,
    });
    const findings = runPolicy(repo, [
      check('thrower', (ctx) => {
        ctx.fail({ file: 'a.yaml', line: 2 }, 'found before the throw');
        (ctx.resources[0]!.object as { spec: { x: () => void } }).spec.x();
      }),
      check('after', (ctx) => ctx.fail({ file: 'b.yaml' }, 'still runs')),
    ]);
    expect(findings.map((f) => [f.check, f.file, f.message])).toEqual([
      ['thrower', 'a.yaml', 'found before the throw'],
      [
        'thrower',
        '.',
        expect.stringMatching(/^the check could not judge the repository \(TypeError: .*\): a fault of the gate, met on a value of a type it did not expect$/),
      ],
      ['after', 'b.yaml', 'still runs'],
    ]);
  });
});
