/**
 * A pod's seccomp and AppArmor profiles and its sysctls, as pkg/apis/core/validation judges them, through the kind
 * validation every workload's template passes.
 */
import { describe, expect, it } from 'vitest';
import { sysctlNamespace } from '../../admission/validation/security-profiles.ts';
import { validateBuiltin } from '../../admission/validation/kinds.ts';

const pod = (spec: object, container: object = {}) => ({
  metadata: { name: 'web' },
  spec: { containers: [{ name: 'web', image: 'web:1', ...container }], ...spec },
});
const said = (spec: object, container?: object) => validateBuiltin('Pod', pod(spec, container), 35).map((p) => `${p.path.join('.')}: ${p.message}`);

describe('security profiles', () => {
  it('admits RuntimeDefault, and a Localhost profile that names a relative file', () => {
    expect(
      said(
        { securityContext: { seccompProfile: { type: 'RuntimeDefault' }, appArmorProfile: { type: 'Localhost', localhostProfile: 'k8s-apparmor-example' } } },
        { securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'profiles/audit.json' } } },
      ),
    ).toEqual([]);
  });
  it('refuses a Localhost profile without its file, or with one that is absolute or steps up, and a file under another type', () => {
    expect(
      said(
        { securityContext: { seccompProfile: { type: 'Localhost' }, appArmorProfile: { type: 'RuntimeDefault', localhostProfile: 'x' } } },
        {
          securityContext: {
            seccompProfile: { type: 'Localhost', localhostProfile: '/etc/../audit.json' },
            appArmorProfile: { type: 'Localhost', localhostProfile: ' x' },
          },
        },
      ),
    ).toEqual([
      'spec.securityContext.seccompProfile.localhostProfile: localhostProfile: must be set when seccomp type is Localhost',
      'spec.securityContext.appArmorProfile.localhostProfile: localhostProfile: can only be set when AppArmor type is Localhost',
      'spec.containers.0.securityContext.seccompProfile.localhostProfile: localhostProfile "/etc/../audit.json": must be a relative path',
      `spec.containers.0.securityContext.seccompProfile.localhostProfile: localhostProfile "/etc/../audit.json": must not contain '..'`,
      'spec.containers.0.securityContext.appArmorProfile.localhostProfile: localhostProfile: must not be padded with whitespace',
    ]);
  });
});

describe('sysctls', () => {
  it('admits names the kernel could have, in dots or slashes', () => {
    expect(
      said({
        securityContext: {
          sysctls: [
            { name: 'net.ipv4.ip_local_port_range', value: '1024 65535' },
            { name: 'kernel/shm_rmid_forced', value: '1' },
          ],
        },
      }),
    ).toEqual([]);
  });
  it('refuses a bad name, a name twice, and a sysctl of a namespace the pod shares with its node', () => {
    expect(
      said({
        hostNetwork: true,
        hostIPC: true,
        securityContext: {
          sysctls: [
            { name: 'Net.Bad', value: '1' },
            { name: 'net.core.somaxconn', value: '1' },
            { name: 'net.core.somaxconn', value: '2' },
            { name: 'kernel.msgmax', value: '1' },
          ],
        },
      }),
    ).toEqual([
      expect.stringMatching(/^spec\.securityContext\.sysctls\.0\.name: sysctl "Net\.Bad": must have at most 253 characters and match regex /),
      `spec.securityContext.sysctls.1.name: sysctl "net.core.somaxconn": may not be specified when 'hostNetwork' is true`,
      'spec.securityContext.sysctls.2.name: sysctl "net.core.somaxconn": Duplicate value',
      `spec.securityContext.sysctls.2.name: sysctl "net.core.somaxconn": may not be specified when 'hostNetwork' is true`,
      `spec.securityContext.sysctls.3.name: sysctl "kernel.msgmax": may not be specified when 'hostIPC' is true`,
    ]);
  });
  it('places a sysctl in its namespace as the kubelet does', () => {
    expect(
      [
        'net.ipv4.tcp_syncookies',
        'net/ipv4/conf/eno2.100/rp_filter',
        'kernel.sem',
        'kernel.shmmax',
        'fs.mqueue.msg_max',
        'kernel.sem_x',
        'vm.swappiness',
        'net.*',
      ].map(sysctlNamespace),
    ).toEqual(['net', 'net', 'ipc', 'ipc', 'ipc', undefined, undefined, 'net']);
  });
});
