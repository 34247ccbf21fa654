/**
 * No finding prints a Secret's text. The checks that read a program's own settings read a Secret's values too (a
 * committed Secret is no-plain-secret's finding, but a chart may render one), and still judge them; a finding that
 * would quote such a value says where it comes from instead. Each case breaks a real workload of the repository with
 * a value moved into a Secret, and again with the same value written plainly: the finding is made both times, and
 * only the plain one prints the value, so the test fails if the Secret's text ever reaches a message.
 */
import { describe, expect, it } from 'vitest';
import { imageNeedsCheck } from '../../checks/images/index.ts';
import { backupHygieneChecks } from '../../checks/backups/job-hygiene.ts';
import { shareAccessCheck } from '../../checks/media/share-access.ts';
import { runChecks } from '../../model/checks/runner.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { objects, type Obj } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);

const resourceNamed = (kind: string, name: string): Resource => repo.resources.find((r) => r.kind === kind && r.name === name)!;

/** A Secret the repository writes, beside the workload, holding `values`. */
const committedSecret = (namespace: string, values: Record<string, string>): Resource =>
  ({
    ...repo.resources[0]!,
    kind: 'Secret',
    apiVersion: 'v1',
    name: 'settings',
    namespace,
    object: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'settings', namespace }, stringData: values },
  }) as Resource;

/** The workload with one variable of its first container (of `container`) set to `value`, plainly or from the Secret. */
function withVariable(workload: Resource, { container, name, value, secret }: { container: string; name: string; value: string; secret: boolean }): Resource {
  const object = structuredClone(workload.object) as Obj;
  const pod = (object.spec as Obj).jobTemplate ? (((object.spec as Obj).jobTemplate as Obj).spec as Obj) : (object.spec as Obj);
  const c = objects(((pod.template as Obj).spec as Obj).containers).find((c) => c.name === container)!;
  const entry = secret ? { name, valueFrom: { secretKeyRef: { name: 'settings', key: name } } } : { name, value };
  c.env = [...objects(c.env).filter((e) => e.name !== name), entry];
  return { ...workload, object } as Resource;
}

/** The findings of `checks` on the repository with the workload's variable set plainly and from a committed Secret. */
function judgedBothWays(checks: readonly PolicyCheck[], workload: Resource, variable: { container: string; name: string; value: string }) {
  // What the repository's own findings are (its not-judged ones): each case's are those the change makes.
  const before = new Set(runChecks(repo, checks).findings.map((f) => f.message));
  const judged = (secret: boolean) => {
    const changed = withVariable(workload, { ...variable, secret });
    const resources = [...repo.resources.filter((r) => r !== workload), changed, committedSecret(workload.namespace!, { [variable.name]: variable.value })];
    return runChecks({ ...repo, resources }, checks).findings.filter((f) => !before.has(f.message));
  };
  return { plain: judged(false), secret: judged(true) };
}

const printed = (findings: readonly { message: string; fix?: string }[]) => findings.map((f) => `${f.message} ${f.fix ?? ''}`).join('\n');

describe('no finding prints a Secret’s text', () => {
  const api = resourceNamed('Deployment', 'portfolio-api');
  const cases: { title: string; checks: readonly PolicyCheck[]; workload: Resource; container: string; name: string; value: string; says: RegExp }[] = [
    {
      title: 'a bind address',
      checks: [imageNeedsCheck],
      workload: api,
      container: 'api',
      name: 'HOST',
      value: '127.0.0.1',
      says: /listens on the address its Secret holds \(HOST\)/,
    },
    {
      title: 'a port',
      checks: [imageNeedsCheck],
      workload: api,
      container: 'api',
      name: 'PORT',
      value: '3917',
      says: /it listens on the port its Secret holds \(PORT\)/,
    },
    {
      title: 'an address a program gives its clients',
      checks: [imageNeedsCheck],
      workload: api,
      container: 'api',
      name: 'BASE_URL',
      value: 'https://portfolio.example.nte',
      says: /gives .* BASE_URL with a value its Secret holds, and the Ingresses route/,
    },
    {
      title: 'a value in a form the image refuses',
      checks: [imageNeedsCheck],
      workload: api,
      container: 'api',
      name: 'BASE_URL',
      value: 'portfolio.example.nte',
      says: /sets BASE_URL to a value its Secret holds, but/,
    },
    {
      title: 'a backup folder',
      checks: backupHygieneChecks,
      workload: resourceNamed('CronJob', 'etcd-backup'),
      container: 'etcd-backup',
      name: 'BACKUP_DIR',
      value: '/backupz-9f3',
      says: /nothing is mounted at a value its Secret holds/,
    },
    {
      title: 'the user an init drops to',
      checks: [shareAccessCheck],
      workload: resourceNamed('Deployment', 'tdarr'),
      container: 'tdarr',
      name: 'PUID',
      value: '1917',
      says: /runs as the uid its Secret holds \(the PUID and PGID its Secret holds/,
    },
  ];
  for (const { title, checks, workload, says, ...variable } of cases)
    it(`judges ${title} from a Secret and never prints it`, () => {
      const { plain, secret } = judgedBothWays(checks, workload, variable);
      expect(plain.length, printed(plain)).toBeGreaterThan(0);
      expect(printed(plain)).toContain(variable.value.replace(/^https:\/\//, ''));
      // The same findings, and where the Secret is one no ExternalSecret writes, the backup check's word on that beside them.
      expect(secret.map((f) => [f.check, f.severity])).toEqual(expect.arrayContaining(plain.map((f) => [f.check, f.severity])));
      expect(printed(secret)).toMatch(says);
      expect(printed(secret)).not.toContain(variable.value.replace(/^https:\/\//, ''));
    });
});
