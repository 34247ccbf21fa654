/**
 * What an Alloy process reads of its host (evaluate.ts' Host), from the workload that runs it: a variable of its
 * container's environment as the kubelet sets it (model/cluster/environment.ts; a `fieldRef` of `spec.nodeName` stands
 * for the node's name, one of `metadata.namespace` is the pod's namespace), HOSTNAME where the spec does not set it the pod's hostname (the container runtime sets it),
 * any other variable nothing sets "" (os.Getenv), and `constants.hostname` the pod's hostname (os.Hostname: its name;
 * the node's hostname on the host's network). No Secret's text is read: a variable set from one is not worked out.
 */
import { dig, list, obj, type Obj } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import { scalarText } from '../core/text.ts';
import { podSpecOf } from '../core/workloads.ts';
import { namespaceOrDestination } from '../argocd/argocd.ts';
import { containerEnvironment } from '../cluster/environment.ts';
import type { Repo } from '../repository/repo.ts';
import type { Host } from './evaluated.ts';

export const NODE_NAME = "the node's name";
export const POD_HOSTNAME = "the pod's hostname (its name)";
export const NODE_HOSTNAME = "the node's hostname";

export function alloyHost(view: { repo: Repo; resources: readonly Resource[] }, workload: Resource, container: Obj): Host {
  const namespace = namespaceOrDestination(view.repo, workload);
  const environment = containerEnvironment(view, namespace, container);
  const hostname = { symbol: dig(podSpecOf(workload)?.spec, ['hostNetwork']) === true ? NODE_HOSTNAME : POD_HOSTNAME };
  return {
    env(name) {
      const setting = environment.setting(name);
      if (setting === undefined) return name === 'HOSTNAME' ? hostname : { value: '' };
      if (typeof setting === 'object') return { value: setting.value };
      const entry = list(container.env).findLast((e) => scalarText(obj(e).name) === name);
      const field = setting === 'held' ? scalarText(dig(entry, ['valueFrom', 'fieldRef', 'fieldPath']) ?? '') : undefined;
      // The kubelet's downward API: the node's name, and the namespace the pod is created in.
      if (field === 'spec.nodeName') return { symbol: NODE_NAME };
      return field === 'metadata.namespace' && namespace !== undefined ? { value: namespace } : undefined;
    },
    hostname,
  };
}
