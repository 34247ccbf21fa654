/**
 * What an Alloy configuration asks the API server (model/alloy/kubernetes-requests.ts), component by component as
 * Alloy v1.18.1 runs them: Prometheus' Kubernetes discovery by role and namespaces, the events source's informer,
 * the pod tailer's gets, and a component whose arguments are no literal said unread.
 */
import { describe, expect, it } from 'vitest';
import { alloyApiRequests } from '../../model/alloy/kubernetes-requests.ts';

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
      'discovery.kubernetes "p" {\n  role = sys.env("ROLE")\n}\nloki.source.kubernetes "t" {\n  targets = []\n  forward_to = []\n}\nprometheus.operator.servicemonitors "s" {\n  forward_to = []\n}\n';
    expect(alloyApiRequests(text, 'm')).toEqual({
      requests: [],
      unread: [
        `discovery.kubernetes "p" (its role is sys.env("ROLE"), read from Alloy's environment, a value known when Alloy runs)`,
        'loki.source.kubernetes "t" (its targets are not followed to a discovery.kubernetes of the file, which says which namespaces it tails)',
        'prometheus.operator.servicemonitors "s" (what it asks the API server is not read)',
      ],
    });
  });

  it('gets the one Secret or ConfigMap remote.kubernetes.* names, and says unread a component whose client is pointed elsewhere', () => {
    const remote = (kind: string, body: string) => `remote.kubernetes.${kind} "r" {\n${body}}\n`;
    expect(alloyApiRequests(remote('secret', '  namespace = "monitoring"\n  name = "loki-" + "auth"\n'), 'm')).toEqual({
      requests: ['GET /api/v1/namespaces/monitoring/secrets/loki-auth'],
      unread: [],
    });
    expect(alloyApiRequests(remote('configmap', '  namespace = sys.env("POD_NAMESPACE")\n  name = "c"\n'), 'm').unread).toEqual([
      'remote.kubernetes.configmap "r" (its namespace is sys.env("POD_NAMESPACE"), read from Alloy\'s environment, a value known when Alloy runs)',
    ]);
    const elsewhere = "its client sets kubeconfig_file: it calls as that configuration says, not as the pod's service account";
    expect(alloyApiRequests(remote('secret', '  namespace = "a"\n  name = "b"\n  client {\n    kubeconfig_file = "/etc/k"\n  }\n'), 'm')).toEqual({
      requests: [],
      unread: [`remote.kubernetes.secret "r" (${elsewhere})`],
    });
    // The discovery's client settings are its own arguments: its lists are not the account's, its namespaces still read.
    const discovery =
      'discovery.kubernetes "p" {\n  role = "pod"\n  api_server = "https://other:6443"\n}\nloki.source.kubernetes "t" {\n  targets = discovery.kubernetes.p.targets\n  forward_to = []\n}\n';
    expect(alloyApiRequests(discovery, 'm')).toEqual({
      requests: ['GET /api/v1/pods/{pod}', 'GET /api/v1/pods/{pod}/log'].map((r) => r.replace('/pods', '/namespaces/{any}/pods')),
      unread: ['discovery.kubernetes "p" (its client sets api_server: it calls as that configuration says, not as the pod\'s service account)'],
    });
    const events = 'loki.source.kubernetes_events "e" {\n  forward_to = []\n  client {\n    kubeconfig_file = "/etc/k"\n  }\n}\n';
    expect(alloyApiRequests(events, 'm')).toEqual({ requests: [], unread: [`loki.source.kubernetes_events "e" (${elsewhere})`] });
  });

  it("tails pods in the namespaces of its own targets' discovery, through a relabelling, not every discovery's of the file", () => {
    const text = `discovery.kubernetes "nodes" {
  role = "node"
}
discovery.kubernetes "pods" {
  role = "pod"
  namespaces {
    names = ["media"]
  }
}
discovery.relabel "pods" {
  targets = discovery.kubernetes.pods.targets
}
loki.source.kubernetes "pods" {
  targets    = discovery.relabel.pods.output
  forward_to = []
}
`;
    const { requests, unread } = alloyApiRequests(text, 'monitoring');
    expect(unread).toEqual([]);
    expect(requests.filter((r) => r.includes('{pod}'))).toEqual(['GET /api/v1/namespaces/media/pods/{pod}', 'GET /api/v1/namespaces/media/pods/{pod}/log']);
    // Fed by the discovery of nodes, whose targets carry no pod, it tails nothing and asks nothing.
    const fedNodes = alloyApiRequests(
      text.replace('targets = discovery.kubernetes.pods.targets', 'targets = discovery.kubernetes.nodes.targets'),
      'monitoring',
    );
    expect(fedNodes.requests.filter((r) => r.includes('{pod}'))).toEqual([]);
    // Its discovery's namespaces not read: the tailer's are not either, and it says so.
    const unreadNames = alloyApiRequests(text.replace('["media"]', '[sys.env("NS")]'), 'monitoring').unread;
    expect(unreadNames.at(-1)).toBe('loki.source.kubernetes "pods" (the namespaces of discovery.kubernetes "pods" are not read)');
  });

  it('works each argument out as Alloy evaluates it, with what the agent reads of its host where the caller gives it', () => {
    const text = `discovery.kubernetes "p" {
  role = "po" + "d"
  namespaces {
    names = [sys.env("NS"), string.to_lower("Media")]
  }
}
loki.source.kubernetes_events "e" {
  namespaces = concat(["a"], [sys.env("NS")])
  forward_to = []
}
`;
    const host = { env: (name: string) => (name === 'NS' ? { value: 'logs' } : undefined) };
    expect(alloyApiRequests(text, 'm', host)).toEqual({
      requests: [
        ...['logs', 'media'].flatMap((ns) => [`GET /api/v1/namespaces/${ns}/pods`, `GET /api/v1/namespaces/${ns}/pods?watch=true`]),
        ...['a', 'logs'].flatMap((ns) => [`GET /api/v1/namespaces/${ns}/events`, `GET /api/v1/namespaces/${ns}/events?watch=true`]),
      ],
      unread: [],
    });
    // Without the host (no render), a variable is known by its type alone: the namespaces are not read, and said.
    expect(alloyApiRequests(text, 'm')).toEqual({
      requests: [],
      unread: [
        `discovery.kubernetes "p" (its names holds sys.env("NS"), read from Alloy's environment, a value known when Alloy runs)`,
        'loki.source.kubernetes_events "e" (its namespaces is concat, a value known when Alloy runs)',
      ],
    });
    // A node's name is no namespace the gate knows; a role Prometheus' discovery does not run asks nothing.
    const node = { env: () => ({ symbol: "the node's name" }) };
    expect(alloyApiRequests('discovery.kubernetes "p" {\n  role = "pod"\n  namespaces {\n    names = [sys.env("N")]\n  }\n}\n', 'm', node).unread).toHaveLength(
      1,
    );
    expect(alloyApiRequests('discovery.kubernetes "p" {\n  role = "pods"\n}\n', 'm')).toEqual({ requests: [], unread: [] });
    expect(alloyApiRequests('discovery.kubernetes "p" {\n  role = discovery.kubernetes.q.targets\n}\n', 'm').unread).toEqual([
      'discovery.kubernetes "p" (its role is not worked out: discovery.kubernetes.q.targets, which the gate does not work out)',
    ]);
  });
});
