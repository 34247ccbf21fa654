/**
 * A value of the wrong type in the real repository's platform, monitoring and security files (a number where a list is
 * written, a list where a map is, a null in a list) is judged: the schema layer (or the check reading it) names it,
 * and no check throws on it (the media stack's files: wrong-types-media.test.ts). A check that still throws is one
 * finding in its name, never a pass nor a stack trace, and the other checks still run.
 */
import { describeWrongTypes, type WrongType } from '../support/wrong-types.ts';
import { describe, expect, it } from 'vitest';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';

const CASES: WrongType[] = [
  ['monitoring/kube-prometheus-stack/values.yaml', 0, ['alertmanager', 'config', 'route', 'routes'], [null]],
  ['monitoring/kube-prometheus-stack/values.yaml', 0, ['alertmanager', 'config', 'receivers', 2, 'slack_configs'], [null]],
  ['monitoring/pve-exporter/externalsecret.yaml', 0, ['spec', 'target', 'template', 'data', 'pve.yml'], { a: null }],
  ['apps/platform/backups/restore-test.yaml', 0, ['spec', 'jobTemplate', 'spec', 'template', 'spec', 'containers', 0, 'volumeMounts'], [null]],
  ['monitoring/alert-rules/network.yaml', 0, ['spec', 'groups', 0, 'rules'], true],
  ['monitoring/alert-rules/workloads.yaml', 0, ['spec', 'groups'], 1.5],
  ['apps/platform/argocd/patches/argocd-cm.yaml', 0, ['data'], true],
  ['portfolio-api/deploy/deployment.yaml', 0, ['spec', 'template', 'spec', 'containers'], [null]],
  ['monitoring/snmp-exporter/externalsecret.yaml', 0, ['spec', 'data'], 99999999999],
  ['portfolio-api/deploy/servicemonitor.yaml', 0, ['spec', 'endpoints'], 99999999999],
  ['security/falco/networkpolicy.yaml', 0, ['spec', 'egress', 1, 'toPorts', 0, 'ports'], -1],
  ['monitoring/kube-prometheus-stack/values.yaml', 0, ['alertmanager', 'config', 'route', 'routes', 3, 'matchers'], 'x'],
  ['monitoring/blackbox-exporter/probes.yaml', 0, ['spec', 'targets', 'staticConfig', 'static', 3], {}],
  ['monitoring/alert-rules/watchdog.yaml', 0, ['spec', 'groups', 0, 'rules', 0], null],
  ['monitoring/alert-rules/watchdog.yaml', 0, ['spec', 'groups'], [null]],
  ['security/falco/networkpolicy.yaml', 0, ['spec', 'egress'], 1.5],
  ['clusters/home/projects.yaml', 0, ['spec', 'destinations', 0], null],
  ['apps/platform/backups/etcd-backup.yaml', 0, ['spec', 'jobTemplate', 'spec', 'template', 'spec', 'containers', 0, 'env'], 99999999999],
  ['apps/platform/argocd/kustomization.yaml', 0, ['resources'], 1.5],
  ['security/falco/values.yaml', 0, ['mounts', 'volumeMounts', 0, 'mountPath'], [null]],
];

describeWrongTypes('a value of the wrong type in the real repository', CASES);

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
