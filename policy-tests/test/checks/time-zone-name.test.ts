/** workload-time-zone: a zone given under a name one slip from TZ, which no library reads. */
import { describe, expect, it } from 'vitest';
import { timeZoneCheck } from '../../checks/workload-hygiene/time-zone.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const template = repo.resources.find((r) => r.kind === 'Deployment')!;

/** The repository and a Deployment whose one container is given `env`. */
const withEnv = (env: { name: string; value: string }[]): Repo => {
  const object = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'clock', namespace: 'media' },
    spec: { template: { spec: { containers: [{ name: 'app', image: 'app:1', env }] } } },
  };
  return { ...repo, resources: [...repo.resources, { ...template, name: 'clock', object } as Resource] };
};
const messages = (r: Repo) => runPolicy(r, [timeZoneCheck]).map((f) => f.message);

describe('workload-time-zone: the name a zone is given under', () => {
  it('leaves alone TZ itself, a slip beside a TZ, a value that is no zone and a name further off', () => {
    expect(messages(repo)).toEqual([]);
    expect(
      messages(
        withEnv([
          { name: 'TZ', value: 'Europe/Oslo' },
          { name: 'TY', value: 'Europe/Oslo' },
        ]),
      ),
    ).toEqual([]);
    expect(
      messages(
        withEnv([
          { name: 'TX', value: 'on' },
          { name: 'TIMEZONE', value: 'Europe/Oslo' },
          { name: 'PUID', value: '1000' },
        ]),
      ),
    ).toEqual([]);
  });

  it('refuses a zone under a name one slip from TZ', () => {
    expect(messages(withEnv([{ name: 'tz', value: 'Europe/Oslo' }]))).toEqual([
      'container app is given the zone "Europe/Oslo" as "tz", which nothing reads (did you mean "TZ"?): the C library, Go and .NET read TZ alone, and Deployment clock runs its schedules in UTC',
    ]);
    expect(messages(withEnv([{ name: 'TZZ', value: 'America/New_York' }]))).toHaveLength(1);
  });
});
