import { describe, expect, it } from 'vitest';
import { appRunAs, mayWriteIn, type RunAs } from '../../model/repository/run-as.ts';
import type { ImageNeeds } from '../../model/repository/image-facts.ts';
import { containerEnv, containersOf, podSpecOf, type ContainerRef } from '../../model/core/workloads.ts';

const deployment = (pod: Record<string, unknown>, container: Record<string, unknown>) => {
  const ref = podSpecOf({ kind: 'Deployment', object: { spec: { template: { spec: { ...pod, containers: [{ name: 'app', ...container }] } } } } })!;
  return { pod: ref, c: containersOf(ref)[0]! };
};
const dropsToPuid: ImageNeeds = { image: 'ghcr.io/example/app', file: 'facts/images.yaml', entry: 0, root: { capabilities: ['CHOWN'] }, source: 'its init' };
/** The app of a container: its image, its facts, its variables read from its env alone (as a plain test pod holds them). */
const app = (c: ContainerRef, image: string, need: ImageNeeds | undefined) => ({
  image,
  need,
  variable: (name: string) => containerEnv(c.container).get(name) ?? undefined,
});
const user = (uid: number, gids: number[], primaryKnown = true): RunAs => ({ uid, gids, primaryKnown, by: 'test' });

describe('appRunAs: who a container’s app runs as', () => {
  it('reads runAsUser, runAsGroup, fsGroup and supplementalGroups, the container over the pod', () => {
    const { pod, c } = deployment(
      { securityContext: { runAsUser: 1000, runAsGroup: 1000, fsGroup: 2000, supplementalGroups: [44] } },
      { securityContext: { runAsUser: 1001 } },
    );
    expect(appRunAs(pod, c, app(c, 'app:1.0.0', undefined))).toEqual({
      runAs: { uid: 1001, gids: [1000, 2000, 44], primaryKnown: true, by: 'runAsUser 1001 and runAsGroup 1000' },
    });
  });

  it('takes PUID and PGID, and no pod group, when the image’s init starts as root and drops to them', () => {
    const { pod, c } = deployment(
      { securityContext: { fsGroup: 1000 } },
      {
        env: [
          { name: 'PUID', value: '1000' },
          { name: 'PGID', value: '100' },
        ],
      },
    );
    expect(appRunAs(pod, c, app(c, 'app:1.0.0', dropsToPuid))).toMatchObject({ runAs: { uid: 1000, gids: [100] } });
  });

  it('does not apply the init’s drop to a release from `before` on, nor to a command that replaces the entrypoint', () => {
    const later = deployment({ securityContext: { runAsUser: 1000, runAsGroup: 1000 } }, {});
    expect(appRunAs(later.pod, later.c, app(later.c, 'app:2.7.5', { ...dropsToPuid, root: { capabilities: [], before: '2.7.5' } }))).toMatchObject({
      runAs: { uid: 1000 },
    });
    const replaced = deployment({ securityContext: { runAsUser: 1000 } }, { command: ['python', 'app.py'] });
    expect(appRunAs(replaced.pod, replaced.c, app(replaced.c, 'app:1.0.0', { ...dropsToPuid, entrypoint: ['/init'] }))).toMatchObject({ runAs: { uid: 1000 } });
  });

  it('says what is not known rather than guess: the image’s USER, PUID from a Secret, a tag with no release', () => {
    const bare = deployment({}, {});
    expect(appRunAs(bare.pod, bare.c, app(bare.c, 'app:1.0.0', undefined))).toEqual({ unknown: expect.stringContaining('USER') });
    const fromSecret = deployment({}, { env: [{ name: 'PUID', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] });
    expect(appRunAs(fromSecret.pod, fromSecret.c, { image: 'app:1.0.0', need: dropsToPuid, variable: (name) => (name === 'PUID' ? null : '100') })).toEqual({
      unknown: expect.stringContaining('PUID/PGID, and they are set from a value the gate does not read'),
    });
    expect(appRunAs(bare.pod, bare.c, app(bare.c, 'app:latest', { ...dropsToPuid, root: { capabilities: [], before: '2.0.0' } }))).toEqual({
      unknown: expect.stringContaining('no release'),
    });
  });
});

describe('mayWriteIn: what a folder’s mode lets a user create in it', () => {
  it('lets the owner by the owner’s bits, a member by the group’s, anyone else by the others’', () => {
    expect(mayWriteIn(user(1026, [100]), { mode: '755', owner: '1026:100' })).toBe(true);
    expect(mayWriteIn(user(1000, [1000]), { mode: '775', owner: '1026:1000' })).toBe(true);
    expect(mayWriteIn(user(1000, [1000]), { mode: '775', owner: '1026:100' })).toBe(false);
    expect(mayWriteIn(user(1000, [1000]), { mode: '777', owner: '1026:100' })).toBe(true);
    // Write without search (x) creates nothing.
    expect(mayWriteIn(user(1000, [1000]), { mode: '760', owner: '1026:1000' })).toBe(false);
    // The owner is judged by the owner's bits alone, even where the group's would allow.
    expect(mayWriteIn(user(1000, [1000]), { mode: '575', owner: '1000:1000' })).toBe(false);
  });

  it('lets root write anywhere, and leaves undecided what turns on a primary group the image gives', () => {
    expect(mayWriteIn(user(0, []), { mode: '700', owner: '1026:100' })).toBe(true);
    expect(mayWriteIn(user(1000, [], false), { mode: '775', owner: '1026:100' })).toBeUndefined();
    expect(mayWriteIn(user(1000, [], false), { mode: '755', owner: '1026:100' })).toBe(false);
    expect(mayWriteIn(user(1000, [1000]), { mode: 'rwx', owner: '1026:100' })).toBeUndefined();
  });
});
