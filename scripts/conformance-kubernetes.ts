/**
 * The conformance command's readers of the node's own tests in Kubernetes: the kubelet's (its sysctl allowlist, its
 * `$(NAME)` expansion of a container's variables) and component-helpers' (node affinity, taints, sysctl namespaces),
 * each against the gate's port of the same function.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { conformance } from '../policy-tests/index.ts';
import { UsageError } from './lib/command.ts';
import { readText, report } from './lib/agreement-report.ts';

/** The kubelet's tests a checkout of kubernetes/kubernetes holds (a sparse one may hold either): its sysctl allowlist, its `$(NAME)` expansion. */
export function reportKubelet(kubelet: string, minor: number, print: (line: string) => void): void {
  const KUBELET_TESTS = { sysctl: 'pkg/kubelet/sysctl/allowlist_test.go', expansion: 'third_party/forked/golang/expansion/expand_test.go' };
  const [sysctl, expansion] = [KUBELET_TESTS.sysctl, KUBELET_TESTS.expansion].map((file) => join(kubelet, file));
  if (!existsSync(sysctl!) && !existsSync(expansion!))
    throw new UsageError(`--kubelet ${kubelet}: holds neither ${KUBELET_TESTS.sysctl} nor ${KUBELET_TESTS.expansion}`);
  if (existsSync(sysctl!))
    report(
      `The kubelet's sysctl allowlist tests (${KUBELET_TESTS.sysctl})`,
      conformance.kubeletSysctlAgreement(conformance.kubeletSysctlCases(readText(sysctl!), minor)),
      print,
    );
  if (existsSync(expansion!))
    report(
      `The kubelet's $(NAME) expansion tests (${KUBELET_TESTS.expansion})`,
      conformance.kubeletExpansionAgreement(conformance.kubeletExpansionCases(readText(expansion!))),
      print,
    );
}

/** component-helpers' node affinity, taint and sysctl namespace tests, against the scheduler's and the kubelet's ports. */
export function reportComponentHelpers(checkout: string, print: (line: string) => void): void {
  const table = conformance.schedulingCases({
    nodeaffinity: readText(join(checkout, 'scheduling/corev1/nodeaffinity/nodeaffinity_test.go')),
    helpers: readText(join(checkout, 'scheduling/corev1/helpers_test.go')),
    sysctlNamespace: readText(join(checkout, 'node/util/sysctl/namespace_test.go')),
    sysctl: readText(join(checkout, 'node/util/sysctl/sysctl_test.go')),
  });
  report(
    `Where a pod may run: component-helpers' node affinity, taint and sysctl tests (${table.declined.length} declined)`,
    conformance.schedulingAgreement(table),
    print,
  );
}
