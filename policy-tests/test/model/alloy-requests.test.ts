/**
 * What an Alloy configuration asks the API server (model/alloy/kubernetes-requests.ts), component by component as
 * Alloy v1.18.1 runs them: Prometheus' Kubernetes discovery by role and namespaces, the events source's informer,
 * the pod tailer's gets, and a component whose arguments are no literal said unread.
 */
import { describe, expect, it } from 'vitest';
import { alloyApiRequests, literalAt } from '../../model/alloy/kubernetes-requests.ts';

describe('alloyApiRequests', () => {
  it("lists and watches each resource a discovery's role reads, in its namespaces, nodes where it attaches their metadata", () => {
    const text = `discovery.kubernetes "eps" {
  role = "endpointslice"
  namespaces {
    names         = ["media", "monitoring"]
    own_namespace = true
  }
  attach_metadata {
    node = true
  }
}
`;
    expect(alloyApiRequests(text, 'alloy')).toEqual({
      requests: [
        ...['media', 'monitoring', 'alloy'].flatMap((ns) =>
          [`/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`, `/api/v1/namespaces/${ns}/services`, `/api/v1/namespaces/${ns}/pods`].flatMap((p) => [
            `GET ${p}`,
            `GET ${p}?watch=true`,
          ]),
        ),
        'GET /api/v1/nodes',
        'GET /api/v1/nodes?watch=true',
      ],
      unread: [],
    });
    expect(alloyApiRequests('discovery.kubernetes "n" {\n  role = "node"\n  namespaces {\n    names = ["a"]\n  }\n}\n', 'x').requests).toEqual([
      'GET /api/v1/nodes',
      'GET /api/v1/nodes?watch=true',
    ]);
  });

  it("tails pods in the namespaces its file's discoveries read, and reads events in every namespace where it names none", () => {
    const text = `discovery.kubernetes "pods" {
  role = "pod"
  namespaces {
    names = ["media"]
  }
}
loki.source.kubernetes "pods" {
  targets    = discovery.kubernetes.pods.targets
  forward_to = []
}
loki.source.kubernetes_events "events" {
  forward_to = []
}
`;
    expect(alloyApiRequests(text, 'monitoring').requests).toEqual([
      'GET /api/v1/namespaces/media/pods',
      'GET /api/v1/namespaces/media/pods?watch=true',
      'GET /api/v1/namespaces/media/pods/{pod}',
      'GET /api/v1/namespaces/media/pods/{pod}/log',
      'GET /api/v1/events',
      'GET /api/v1/events?watch=true',
    ]);
    expect(alloyApiRequests('loki.source.kubernetes_events "e" {\n  namespaces = ["a", "b"]\n  forward_to = []\n}\n', 'm').requests).toEqual([
      'GET /api/v1/namespaces/a/events',
      'GET /api/v1/namespaces/a/events?watch=true',
      'GET /api/v1/namespaces/b/events',
      'GET /api/v1/namespaces/b/events?watch=true',
    ]);
  });

  it('says which components it cannot read: a role that is an expression, a tailer with no discovery beside it, another API client', () => {
    const text =
      'discovery.kubernetes "p" {\n  role = sys.env("ROLE")\n}\nloki.source.kubernetes "t" {\n  targets = []\n  forward_to = []\n}\nremote.kubernetes.secret "s" {\n  namespace = "a"\n  name = "b"\n}\n';
    expect(alloyApiRequests(text, 'm')).toEqual({
      requests: [],
      unread: [
        'discovery.kubernetes "p" (its role, namespaces or attach_metadata are no literal the gate reads)',
        'loki.source.kubernetes "t" (no discovery of the file says which namespaces it tails)',
        'remote.kubernetes.secret "s" (what it asks the API server is not read)',
      ],
    });
  });

  it('reads a string, a bool or a list of strings as a literal, and nothing else', () => {
    const at = (line: string) => literalAt(line, 0);
    expect([at('role = "pod"\n'), at('node = true // c\n'), at('names = ["a", "b",]\n'), at('x = "a" + "b"\n'), at('y = sys.env("A")\n')]).toEqual([
      'pod',
      true,
      ['a', 'b'],
      undefined,
      undefined,
    ]);
  });
});
