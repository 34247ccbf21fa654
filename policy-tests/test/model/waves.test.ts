/** Argo CD's order inside one app's sync, as gitops-engine sorts and applies it (model/controller/waves.ts). */
import { describe, expect, it } from 'vitest';
import {
  adjustedSteps,
  ARGOCD_KIND_ORDER,
  kindRank,
  phaseOf,
  placeOf,
  stepBefore,
  unreadableWave,
  waveOf,
  type SyncStep,
} from '../../model/controller/waves.ts';
import type { Resource, ScopeLookup } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';

const resource = (kind: string, annotations: Record<string, string> = {}): Resource =>
  ({ file: 'x.yaml', doc: 0, apiVersion: 'v1', kind, name: 'x', object: { metadata: { name: 'x', annotations } } }) as unknown as Resource;
const step = (kind: string, more: Partial<SyncStep> = {}): SyncStep => ({ phase: 'Sync', wave: 0, kind, needs: [], ...more });

describe('a sync wave as syncwaves.Wave reads it (strconv.Atoi, else the Helm hook weight, else 0)', () => {
  it.each([
    ['5', 5],
    ['+5', 5],
    ['-0', 0],
    ['007', 7],
    ['9223372036854775807', Number(9223372036854775807n)],
  ])('reads %s', (raw, wave) => {
    expect(waveOf(resource('ConfigMap', { 'argocd.argoproj.io/sync-wave': raw }))).toBe(wave);
    expect(unreadableWave(resource('ConfigMap', { 'argocd.argoproj.io/sync-wave': raw }))).toBeUndefined();
  });
  it.each(['1.5', ' 2', 'first', '0x10', '1_000', '', '9223372036854775808'])('cannot read %j, and takes the hook weight, else 0', (raw) => {
    expect(unreadableWave(resource('ConfigMap', { 'argocd.argoproj.io/sync-wave': raw }))).toBe(raw);
    expect(waveOf(resource('ConfigMap', { 'argocd.argoproj.io/sync-wave': raw }))).toBe(0);
    expect(waveOf(resource('ConfigMap', { 'argocd.argoproj.io/sync-wave': raw, 'helm.sh/hook-weight': '-3' }))).toBe(-3);
  });
  it('says nothing where no wave is written', () => expect(unreadableWave(resource('ConfigMap'))).toBeUndefined());
});

describe("Argo CD's sync order inside one app", () => {
  it('applies one kind at a time, in gitops-engine kind order, and every unlisted kind last', () => {
    expect(ARGOCD_KIND_ORDER[0]).toBe('Namespace');
    expect(stepBefore(step('Namespace', { provides: 'other' }), step('Role'))).toBe(true);
    expect(stepBefore(step('StorageClass'), step('PersistentVolumeClaim'))).toBe(true);
    expect(stepBefore(step('IngressClass'), step('Ingress'))).toBe(true);
    expect(stepBefore(step('Deployment'), step('ServiceAccount'))).toBe(false);
    expect(kindRank('Certificate')).toBe(0);
    expect(kindRank('APIService')).toBe(-1);
    // Two kinds it does not rank sort by name and may go out together: neither is before the other.
    expect(stepBefore(step('ClusterIssuer'), step('Certificate'))).toBe(false);
    expect(stepBefore(step('Certificate'), step('ClusterIssuer'))).toBe(false);
    // The same kind goes out together.
    expect(stepBefore(step('ConfigMap'), step('ConfigMap'))).toBe(false);
  });

  it('orders phase before wave, and wave before kind', () => {
    expect(stepBefore(step('Deployment', { phase: 'PreSync' }), step('Namespace'))).toBe(true);
    expect(stepBefore(step('Namespace', { phase: 'PostSync' }), step('Deployment'))).toBe(false);
    expect(stepBefore(step('Deployment', { wave: -1 }), step('Namespace'))).toBe(true);
    expect(stepBefore(step('Namespace', { wave: 2 }), step('Deployment', { wave: 1 }))).toBe(false);
  });

  it('moves a Namespace, and a CRD, ahead of the first resource that needs it, whatever their waves', () => {
    expect(stepBefore(step('Namespace', { wave: 5, provides: 'media' }), step('Role', { wave: 0, needs: ['media'] }))).toBe(true);
    expect(
      stepBefore(
        step('CustomResourceDefinition', { wave: 3, provides: 'cert-manager.io/Certificate' }),
        step('Certificate', { needs: ['cert-manager.io/Certificate'] }),
      ),
    ).toBe(true);
    expect(stepBefore(step('Namespace', { wave: 5, provides: 'media' }), step('Role', { wave: 0, needs: ['other'] }))).toBe(false);
    // Nothing that needs it comes before it: a hook in PreSync is not before the Namespace it runs in.
    expect(stepBefore(step('Job', { phase: 'PreSync', needs: ['media'] }), step('Namespace', { wave: 1, provides: 'media' }))).toBe(false);
  });

  it('gives a moved Namespace or CRD the phase and wave of its first user, as adjustDeps does, so a third object meets it there', () => {
    const namespace = step('Namespace', { wave: 5, name: 'media', provides: 'media' });
    const hook = step('Job', { phase: 'PreSync', name: 'migrate', namespace: 'media', needs: ['media', 'batch/Job'] });
    const other = step('ConfigMap', { name: 'settings', namespace: 'apps', needs: ['apps', '/ConfigMap'] });
    // Alone, the Namespace (Sync, wave 5) comes after the ConfigMap (Sync, wave 0).
    expect(stepBefore(other, namespace)).toBe(true);
    const [moved, , third] = adjustedSteps([namespace, hook, other]);
    expect(moved).toMatchObject({ phase: 'PreSync', wave: 0, rankAs: 'Job' });
    expect(stepBefore(moved!, third!)).toBe(true);
    expect(stepBefore(third!, moved!)).toBe(false);
    // A Namespace already ahead of its users keeps its own place.
    const role = step('Role', { name: 'reader', namespace: 'media', needs: ['media', 'rbac.authorization.k8s.io/Role'] });
    expect(adjustedSteps([step('Namespace', { wave: -1, name: 'media', provides: 'media' }), role])[0]).toEqual(
      step('Namespace', { wave: -1, name: 'media', provides: 'media' }),
    );
    const crd = step('CustomResourceDefinition', { wave: 3, name: 'certificates.cert-manager.io', provides: 'cert-manager.io/Certificate' });
    const certificate = step('Certificate', { name: 'web', namespace: 'apps', needs: ['apps', 'cert-manager.io/Certificate'] });
    expect(adjustedSteps([crd, certificate])[0]).toMatchObject({ wave: 0, rankAs: 'Certificate' });
  });

  it("places a cluster-scoped object in no namespace, as Argo CD clears it, given the cluster's scopes", async () => {
    const repo = await loadRepo(REPO_ROOT);
    const issuer = repo.resources.find((r) => r.kind === 'ClusterIssuer')!;
    expect(placeOf(repo, issuer).step?.namespace).toBe('cert-manager');
    const scope: ScopeLookup = (_apiVersion, kind) => kind === 'ClusterIssuer';
    expect(placeOf(repo, issuer, scope).step?.namespace).toBeUndefined();
    expect(placeOf(repo, issuer, scope).step?.needs).toEqual(['cert-manager.io/ClusterIssuer']);
  });

  it('reads waves and phases as Argo CD does: the sync-wave, else the Helm hook weight; Argo CD hooks, else Helm hooks', () => {
    expect(waveOf(resource('Job', { 'argocd.argoproj.io/sync-wave': '-3', 'helm.sh/hook-weight': '5' }))).toBe(-3);
    expect(waveOf(resource('Job', { 'argocd.argoproj.io/sync-wave': 'soon', 'helm.sh/hook-weight': '5' }))).toBe(5);
    expect(waveOf(resource('Job', { 'argocd.argoproj.io/sync-wave': '1.5' }))).toBe(0);
    expect(phaseOf(resource('Job', { 'helm.sh/hook': 'post-install,pre-upgrade' }))).toBe('PreSync');
    expect(phaseOf(resource('Job', { 'helm.sh/hook': 'post-install', 'argocd.argoproj.io/hook': 'Sync' }))).toBe('Sync');
    expect(phaseOf(resource('Job', { 'helm.sh/hook': 'test' }))).toBe('Sync');
    expect(phaseOf(resource('Job'))).toBe('Sync');
  });
});
