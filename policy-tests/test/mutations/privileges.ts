/**
 * Broken copies of the real repository for policy-tests/checks/privileges/: privilege added to a workload that an
 * exemption speaks for, or in a namespace Pod Security does not guard, fails until the workload names it; a role
 * granted to a subject that stands for many identities fails.
 */
import { isSeq } from 'yaml';
import { lineOf } from '../support/helpers.ts';
import type { Mutation } from '../support/mutation-runner.ts';

const GLUETUN = 'apps/media/gluetun/deployment.yaml';

const PORTFOLIO_RBAC = 'portfolio-api/deploy/rbac.yaml';
const BINDING = (subject: string) =>
  `---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: read-for-all\n  namespace: portfolio\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: view\nsubjects:\n  - ${subject}\n`;

export const privilegesMutations: Mutation[] = [
  {
    check: 'rbac-broad-subject',
    why: "the portfolio namespace's read-only role granted to system:authenticated: every ServiceAccount of every namespace, and every node, reads it",
    mutate: (c) =>
      c.write(PORTFOLIO_RBAC, `${c.read(PORTFOLIO_RBAC)}${BINDING('{kind: Group, name: system:authenticated, apiGroup: rbac.authorization.k8s.io}')}`),
    at: (c) => ({ file: PORTFOLIO_RBAC, line: lineOf(c, PORTFOLIO_RBAC, 'name: system:authenticated') }),
  },
  {
    check: 'rbac-broad-subject',
    why: "a role granted to the portfolio namespace's default ServiceAccount: every pod there that names no ServiceAccount runs as it",
    mutate: (c) => c.write(PORTFOLIO_RBAC, `${c.read(PORTFOLIO_RBAC)}${BINDING('{kind: ServiceAccount, name: default, namespace: portfolio}')}`),
    at: (c) => ({ file: PORTFOLIO_RBAC, line: lineOf(c, PORTFOLIO_RBAC, 'name: default') }),
  },
  {
    check: 'workload-privileges-named',
    why: 'a new root, privileged sidecar plus hostPID and hostIPC on the VPN pod, exempted as a workload and in a namespace enforced at privileged',
    mutate: (c) =>
      c.edit(GLUETUN, 0, (d) => {
        d.setIn(['spec', 'template', 'spec', 'hostPID'], true);
        d.setIn(['spec', 'template', 'spec', 'hostIPC'], true);
        const containers = d.getIn(['spec', 'template', 'spec', 'containers']);
        if (isSeq(containers))
          containers.add(
            d.createNode({
              name: 'helper',
              image: 'docker.io/library/busybox:1.37.0',
              command: ['sleep', 'infinity'],
              securityContext: { privileged: true, runAsUser: 0 },
              resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '32Mi' } },
            }),
          );
      }),
    at: (c) => ({ file: GLUETUN, line: lineOf(c, GLUETUN, 'hostPID: true') }),
  },
  {
    check: 'workload-privileges-named',
    why: 'the VPN container gains NET_RAW beside the NET_ADMIN its annotation names',
    mutate: (c) => c.write(GLUETUN, c.read(GLUETUN).replace('add: ["NET_ADMIN", "MKNOD"]', 'add: ["NET_ADMIN", "MKNOD", "NET_RAW"]')),
    at: 'NET_RAW',
  },
  {
    check: 'workload-privileges-named',
    why: "the VPN app's own kustomize.patches add hostPID to the pod: Argo CD applies the Application's patches, and so does the gate's render",
    mutate: (c) =>
      c.edit('apps/media/gluetun/application.yaml', 0, (d) =>
        d.setIn(
          ['spec', 'source', 'kustomize', 'patches'],
          d.createNode([{ target: { kind: 'Deployment', name: 'gluetun' }, patch: '- op: add\n  path: /spec/template/spec/hostPID\n  value: true\n' }]),
        ),
      ),
    at: (c) => ({ file: GLUETUN, line: lineOf(c, GLUETUN, 'kind: Deployment'), within: 40 }),
  },
  {
    check: 'workload-privileges-named',
    why: 'the annotation names a capability the workload no longer holds (stale), and an entry it cannot read',
    mutate: (c) =>
      c.write(
        GLUETUN,
        c
          .read(GLUETUN)
          .replace(
            'gate.homelab-gitops/privileges: "gluetun: root, cap:NET_ADMIN, cap:MKNOD"',
            'gate.homelab-gitops/privileges: "gluetun: root, cap:NET_ADMIN, cap:MKNOD, cap:SYS_TIME; hostPID"',
          ),
      ),
    at: 'gate.homelab-gitops/privileges:',
  },
];
