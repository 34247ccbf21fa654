/**
 * Argo CD's own cases of the account a sync impersonates (argo-cd controller/sync_test.go,
 * TestDeriveServiceAccountMatchingNamespaces and TestDeriveServiceAccountMatchingServers), judged through the
 * model's reading (model/controller/impersonation.ts): each `t.Run` builds a project's destinationServiceAccounts, an
 * Application's destination and namespace, and a cluster, and expects an account (or none) and an error (or none).
 * A case this reader cannot follow (a value it does not read as a literal, a change of the fixture it does not know)
 * is counted apart, never guessed.
 */
import { impersonatedAccount } from '../../model/controller/impersonation.ts';
import type { ArgoApp } from '../../model/argocd/argocd.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';
import { blockAt } from './go-literals.ts';

const TESTS = ['TestDeriveServiceAccountMatchingNamespaces', 'TestDeriveServiceAccountMatchingServers'];

export interface ImpersonationCase {
  test: string;
  entries: Record<string, string>[];
  destinationNamespace: string;
  applicationNamespace: string;
  clusterServer: string;
  expectedAccount: string;
  /** The text the error must hold, or undefined where none is expected. */
  expectedError?: string;
}

const literal = (body: string, name: string): string | undefined => new RegExp(`\\b${name} := "([^"]*)"`).exec(body)?.[1];

/** The entries of `destinationServiceAccounts := []v1alpha1.ApplicationDestinationServiceAccount{...}`, each a struct of string literals. */
function entriesOf(body: string): Record<string, string>[] | undefined {
  const at = body.indexOf('destinationServiceAccounts := []v1alpha1.ApplicationDestinationServiceAccount{');
  if (at === -1) return undefined;
  const list = blockAt(body, body.indexOf('{', at));
  const entries: Record<string, string>[] = [];
  for (const m of list.matchAll(/\{([^{}]*)\}/g)) {
    const entry: Record<string, string> = {};
    for (const field of m[1]!
      .split(/,\s*\n?/)
      .map((f) => f.trim())
      .filter(Boolean)) {
      const f = /^(\w+):\s*"([^"]*)"$/.exec(field);
      if (!f) return undefined;
      entry[f[1]![0]!.toLowerCase() + f[1]!.slice(1)] = f[2]!;
    }
    entries.push(entry);
  }
  return entries;
}

/** The cases of both tests, and those it cannot follow, each with why. */
export function impersonationCases(goSource: string): { cases: ImpersonationCase[]; unread: { test: string; why: string }[] } {
  const cases: ImpersonationCase[] = [];
  const unread: { test: string; why: string }[] = [];
  for (const test of TESTS) {
    const start = goSource.indexOf(`func ${test}(`);
    if (start === -1) continue;
    const body = blockAt(goSource, goSource.indexOf('{', start));
    const clusterServer = /cluster := &v1alpha1\.Cluster\{\s*Server:\s*"([^"]+)"/.exec(body)?.[1];
    for (const m of body.matchAll(/t\.Run\("([^"]+)", func\(t \*testing\.T\) \{/g)) {
      const name = `${test}/${m[1]}`;
      const run = blockAt(body, m.index + m[0].length - 1);
      const entries = entriesOf(run);
      const [destinationNamespace, applicationNamespace, expectedAccount] = ['destinationNamespace', 'applicationNamespace', 'expectedSA'].map((v) =>
        literal(run, v),
      );
      // The fixture's destination may be renamed (a name for the server): the account is derived from the cluster either way.
      const unknownChange = run.split('\n').find((l) => /^\s*f\.\w+\./.test(l) && !/f\.application\.Spec\.Destination\.(Server|Name) =/.test(l));
      if (
        !entries ||
        clusterServer === undefined ||
        destinationNamespace === undefined ||
        applicationNamespace === undefined ||
        expectedAccount === undefined ||
        unknownChange
      ) {
        unread.push({ test: name, why: unknownChange ? `changes the fixture: ${unknownChange.trim()}` : 'a value this reader does not read as a literal' });
        continue;
      }
      // The cluster the call passes: the fixture's, or one made of the destination's server.
      const clusterArg = /DeriveServiceAccountToImpersonate\(f\.project, f\.application, (.+)\)/.exec(run)?.[1];
      const server =
        clusterArg === 'f.cluster'
          ? clusterServer
          : clusterArg === '&v1alpha1.Cluster{Server: destinationServerURL}'
            ? literal(run, 'destinationServerURL')
            : undefined;
      if (server === undefined) {
        unread.push({ test: name, why: `derives for a cluster this reader does not follow: ${clusterArg ?? 'no call'}` });
        continue;
      }
      const expectedError = /(?:require|assert)\.ErrorContains\(t, err, "([^"]*)"\)/.exec(run)?.[1];
      cases.push({
        test: name,
        entries,
        destinationNamespace,
        applicationNamespace,
        clusterServer: server,
        expectedAccount,
        ...(expectedError ? { expectedError } : {}),
      });
    }
  }
  return { cases, unread };
}

/** Each case judged: the account the model derives (its user name, or '' for none) and its error, against the test's. */
export function impersonationAgreement(cases: readonly ImpersonationCase[]): Agreement {
  const agreement = emptyAgreement();
  for (const c of cases) {
    const app = {
      name: 'testApp',
      project: 'testProj',
      destinationNamespace: c.destinationNamespace === '' ? undefined : c.destinationNamespace,
      sources: [],
      resource: { namespace: c.applicationNamespace, object: {} } as unknown as Resource,
    } as ArgoApp;
    const got = impersonatedAccount({ destinationServiceAccounts: c.entries }, app, c.clusterServer);
    const account = 'user' in got ? got.user : '';
    const error = 'error' in got ? got.error : undefined;
    const ok =
      c.expectedError === undefined ? error === undefined && account === c.expectedAccount : error?.includes(c.expectedError) === true && account === '';
    count(agreement, {
      group: c.test.split('/')[0]!,
      ok,
      file: c.test,
      why: `expects ${c.expectedError ? `an error holding "${c.expectedError}"` : `"${c.expectedAccount}"`}, the model derives ${error ? `the error "${error}"` : `"${account}"`}`,
    });
  }
  return agreement;
}
