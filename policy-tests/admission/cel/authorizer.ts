/**
 * Kubernetes' authorizer library (1.27, errors 1.28, selectors 1.31), for
 * ValidatingAdmissionPolicy expressions: `authorizer` builds a request
 * (path, group, resource, subresource, namespace, name, label and field
 * selectors, or a service account's), and check(verb) asks the cluster's
 * authorizers. The request is built as the API server builds it; the
 * decision (allowed, reason, errored, error) depends on the live cluster's
 * RBAC, webhooks and the requesting user, which the gate does not have, so
 * reading it makes the expression not judged, never true or false.
 */
import type { CelFunc } from '@bufbuild/cel';

type Cel = typeof import('@bufbuild/cel');

/** What an expression that reads a decision gives: an error whose message carries this mark (the engine turns a thrown error into an error value). */
export const NOT_JUDGED_MARK = '\uE004not judged: ';
export const AUTHORIZER_DECISION_UNKNOWN = `${NOT_JUDGED_MARK}the authorizer's decision depends on the cluster's RBAC, its webhooks and the requesting user, which the gate does not see`;

const MARK = '\uE003authz:';

/** The methods that read a decision: an expression calling one is not judged. */
export const AUTHORIZER_DECISIONS = ['allowed', 'errored', 'reason', 'error'] as const;

interface Request {
  kind: 'authorizer' | 'path' | 'group' | 'resource' | 'decision';
  serviceAccount?: string;
  path?: string;
  group?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  labelSelector?: string;
  fieldSelector?: string;
  verb?: string;
}

/** The value bound to `authorizer` in a policy's expressions. */
export const AUTHORIZER: string = MARK + JSON.stringify({ kind: 'authorizer' } satisfies Request);

const carry = (r: Request): string => MARK + JSON.stringify(r);
function read(value: string, kinds: readonly Request['kind'][], method: string): Request {
  const r = value.startsWith(MARK) ? (JSON.parse(value.slice(MARK.length)) as Request) : undefined;
  if (!r || !kinds.includes(r.kind)) throw new Error(`no such overload: ${method}`);
  return r;
}

export function authorizerFunctions(cel: Cel): CelFunc[] {
  const { celMethod, CelScalar } = cel;
  const [S, B] = [CelScalar.STRING, CelScalar.BOOL];
  const step = (method: string, from: Request['kind'][], to: (r: Request, arg: string) => Request) =>
    celMethod(method, S, [S], S, function (arg) {
      return carry(to(read(this, from, method), arg));
    });
  const decision = (method: string, result: typeof S | typeof B) =>
    celMethod(method, S, [], result, function () {
      read(this, ['decision'], method);
      throw new Error(AUTHORIZER_DECISION_UNKNOWN);
    });
  return [
    step('path', ['authorizer'], (r, path) => ({ ...r, kind: 'path', path })),
    step('group', ['authorizer'], (r, group) => ({ ...r, kind: 'group', group })),
    celMethod('serviceAccount', S, [S, S], S, function (namespace, name) {
      read(this, ['authorizer'], 'serviceAccount');
      return carry({ kind: 'authorizer', serviceAccount: `system:serviceaccount:${namespace}:${name}` });
    }),
    step('resource', ['group'], (r, resource) => ({ ...r, kind: 'resource', resource })),
    step('subresource', ['resource'], (r, subresource) => ({ ...r, subresource })),
    step('namespace', ['resource'], (r, namespace) => ({ ...r, namespace })),
    step('name', ['resource'], (r, name) => ({ ...r, name })),
    step('labelSelector', ['resource'], (r, labelSelector) => ({ ...r, labelSelector })),
    step('fieldSelector', ['resource'], (r, fieldSelector) => ({ ...r, fieldSelector })),
    step('check', ['path', 'resource'], (r, verb) => ({ ...r, kind: 'decision', verb })),
    decision('allowed', B),
    decision('errored', B),
    decision('reason', S),
    decision('error', S),
  ];
}
