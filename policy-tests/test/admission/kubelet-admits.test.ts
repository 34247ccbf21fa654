/**
 * The kubelet's own admission of a pod the API server admitted (Kubernetes v1.36, pkg/kubelet/sysctl/allowlist.go,
 * component-helpers' sysctl namespaces, pkg/volume/emptydir/empty_dir.go), what Talos' container runtime cannot give a
 * container (containerd v2.2's WithCapabilities under Talos v1.13's dropped capabilities), and the cluster fact that
 * configures the kubelet.
 */
import { describe, expect, it } from 'vitest';
import { emptyDirFault, kubeletAllowlist, osRefusals, sysctlRefusal, unheldCapabilities } from '../../admission/checks/kubelet-admits.ts';
import { machineConfigOf } from '../../model/repository/talos-facts.ts';
import type { FactsProblem } from '../../model/repository/fact-lists.ts';

const pod = (containers: object[], initContainers: object[] = []) => ({ spec: { containers, initContainers }, at: ['spec'] as (string | number)[] });
const hugePages = (size: string, where: 'requests' | 'limits' = 'limits') => ({
  name: 'app',
  resources: { [where]: { [`hugepages-${size}`]: '64Mi', memory: '64Mi' } },
});

describe("the kubelet's sysctl allowlist", () => {
  it('runs the safe sysctls alone when the nodes allow no unsafe one, as Talos configures them', () => {
    const { allow, refused } = kubeletAllowlist([], 36);
    expect(refused).toEqual([]);
    expect(sysctlRefusal(allow, 'net.ipv4.ip_unprivileged_port_start')).toBeUndefined();
    expect(sysctlRefusal(allow, 'net.ipv4.tcp_rmem')).toBeUndefined();
    // A name written with slashes is read in dots (NormalizeName).
    expect(sysctlRefusal(allow, 'net/ipv4/ping_group_range')).toBeUndefined();
    expect(sysctlRefusal(allow, 'net.ipv4.conf.all.src_valid_mark')).toBe('forbidden sysctl: "net.ipv4.conf.all.src_valid_mark" not allowlisted');
    expect(sysctlRefusal(allow, 'kernel.msgmax')).toBe('forbidden sysctl: "kernel.msgmax" not allowlisted');
  });

  it('adds what allowedUnsafeSysctls names, a name exactly and a pattern ending in * as a prefix', () => {
    const { allow, refused } = kubeletAllowlist(['net.ipv4.conf.*', 'kernel.msgmax', 'kernel/shm*'], 36);
    expect(refused).toEqual([]);
    expect(sysctlRefusal(allow, 'net.ipv4.conf.all.src_valid_mark')).toBeUndefined();
    expect(sysctlRefusal(allow, 'kernel.msgmax')).toBeUndefined();
    expect(sysctlRefusal(allow, 'kernel.shmmax')).toBeUndefined();
    expect(sysctlRefusal(allow, 'kernel.msgmnb')).toBe('forbidden sysctl: "kernel.msgmnb" not allowlisted');
    expect(sysctlRefusal(allow, 'net.ipv6.conf.all.forwarding')).toBe('forbidden sysctl: "net.ipv6.conf.all.forwarding" not allowlisted');
  });

  it('refuses a pattern the kubelet does not start with, in its words: not namespaced, or no sysctl pattern at all', () => {
    expect(kubeletAllowlist(['vm.swappiness', '*', 'kernel.shmfoo', 'Net.core.somaxconn', 'net.*.x'], 36).refused).toEqual([
      'the sysctls "vm.swappiness" are not known to be namespaced',
      'the sysctls "" are not known to be namespaced',
      // component-helpers names the IPC sysctls one by one since 1.29: kernel.shm stands only for its pattern.
      'the sysctls "kernel.shmfoo" are not known to be namespaced',
      expect.stringMatching(/^sysctl "Net\.core\.somaxconn" must have at most 253 characters and match regex /),
      expect.stringMatching(/^sysctl "net\.\*\.x" must have at most 253 characters and match regex /),
    ]);
  });
});

describe("the kubelet's emptyDir set-up", () => {
  it("sets up the node's disk, Memory and a huge-page medium the pod asks pages for, and no other medium", () => {
    expect(emptyDirFault(undefined, pod([{ name: 'app' }]))).toBeUndefined();
    expect(emptyDirFault('', pod([{ name: 'app' }]))).toBeUndefined();
    expect(emptyDirFault('Memory', pod([{ name: 'app' }]))).toBeUndefined();
    expect(emptyDirFault('memory', pod([{ name: 'app' }]))).toBe('unknown storage medium "memory"');
    expect(emptyDirFault('Disk', pod([{ name: 'app' }]))).toBe('unknown storage medium "Disk"');
  });

  it('mounts huge pages only of a size the containers ask for (a request defaults to its limit), as getPageSizeMountOption', () => {
    expect(emptyDirFault('HugePages', pod([hugePages('2Mi')]))).toBeUndefined();
    expect(emptyDirFault('HugePages-2Mi', pod([hugePages('2Mi', 'requests')]))).toBeUndefined();
    // Init containers count too, and a size is compared as a quantity.
    expect(emptyDirFault('HugePages-2048Ki', pod([{ name: 'app' }], [hugePages('2Mi')]))).toBeUndefined();
    expect(emptyDirFault('HugePages', pod([{ name: 'app' }]))).toBe(
      'medium HugePages: hugePages storage requested, but there is no resource request for huge pages',
    );
    expect(emptyDirFault('HugePages-1Gi', pod([hugePages('2Mi')]))).toBe(
      'medium HugePages-1Gi: hugePages storage requested, but there is no resource request for huge pages',
    );
    expect(emptyDirFault('HugePages', pod([hugePages('2Mi'), { ...hugePages('1Gi'), name: 'side' }]))).toBe(
      "medium: HugePages can't be used if container requests multiple huge page sizes",
    );
    expect(emptyDirFault('HugePages-2x', pod([hugePages('2Mi')]))).toMatch(/^quantities must match the regular expression/);
  });
});

describe("the capabilities Talos' container runtime cannot give", () => {
  const caps = (capabilities: object, privileged?: boolean) => ({
    name: 'app',
    securityContext: { capabilities, ...(privileged === undefined ? {} : { privileged }) },
  });

  it('are SYS_MODULE and SYS_BOOT added by name, in any case, as containerd names them CAP_ and upper case', () => {
    expect(unheldCapabilities(caps({ add: ['NET_ADMIN', 'SYS_MODULE'] }))).toEqual([{ index: 1, name: 'SYS_MODULE' }]);
    expect(unheldCapabilities(caps({ drop: ['ALL'], add: ['sys_boot', 'Sys_Module'] }))).toEqual([
      { index: 0, name: 'sys_boot' },
      { index: 1, name: 'Sys_Module' },
    ]);
    expect(unheldCapabilities(caps({ add: ['NET_ADMIN', 'SYS_ADMIN', 'BPF'] }))).toEqual([]);
    expect(unheldCapabilities({ name: 'app' })).toEqual([]);
  });

  it("are not asked for by ALL (the runtime's own set), by a name containerd prefixes again, or when dropped by name after", () => {
    expect(unheldCapabilities(caps({ add: ['ALL'] }))).toEqual([]);
    // CAP_CAP_SYS_MODULE is a capability runc does not know, and leaves out with a warning.
    expect(unheldCapabilities(caps({ add: ['CAP_SYS_MODULE'] }))).toEqual([]);
    expect(unheldCapabilities(caps({ add: ['SYS_MODULE'], drop: ['sys_module'] }))).toEqual([]);
    // Dropping ALL comes before the adds: it takes nothing away from them.
    expect(unheldCapabilities(caps({ add: ['SYS_MODULE'], drop: ['ALL'] }))).toEqual([{ index: 0, name: 'SYS_MODULE' }]);
  });

  it("are never a privileged container's, which gets the runtime's own set whatever it adds", () => {
    expect(unheldCapabilities(caps({ add: ['SYS_MODULE'] }, true))).toEqual([]);
    expect(unheldCapabilities(caps({ add: ['SYS_MODULE'] }, false))).toEqual([{ index: 0, name: 'SYS_MODULE' }]);
  });
});

describe("the kubelet's OS predicates", () => {
  const cronJob = (labels: object, os?: object) => {
    const spec = { containers: [{ name: 'job' }], ...(os ? { os } : {}) };
    const object = { spec: { jobTemplate: { spec: { template: { metadata: { labels }, spec } } } } };
    return osRefusals({ object }, { spec, at: ['spec', 'jobTemplate', 'spec', 'template', 'spec'] });
  };

  it("fails a pod labelled kubernetes.io/os with another value than linux, case and all, at the template's label", () => {
    expect(cronJob({ 'kubernetes.io/os': 'linux' })).toEqual([]);
    expect(cronJob({ app: 'x' })).toEqual([]);
    expect(cronJob({ 'kubernetes.io/os': 'Linux' }).map((r) => r.path.join('.'))).toEqual(['spec.jobTemplate.spec.template.metadata.labels.kubernetes.io/os']);
  });

  it('fails a pod whose spec.os.name is not linux', () => {
    expect(cronJob({}, { name: 'linux' })).toEqual([]);
    expect(cronJob({}, { name: 'windows' })).toEqual([
      {
        path: ['spec', 'jobTemplate', 'spec', 'template', 'spec', 'os', 'name'],
        why: 'its pods ask for OS "windows", and every node runs linux: PodOSNotSupported',
      },
    ]);
  });
});

describe("the machineConfig cluster fact, at the Talos machine config's own paths", () => {
  const read = (raw: unknown) => {
    const problems: FactsProblem[] = [];
    return { facts: machineConfigOf(raw, problems), problems: problems.map((p) => p.message) };
  };
  const TALOS = {
    allowedUnsafeSysctls: [],
    allowSchedulingOnControlPlanes: false,
    nodeLabels: {},
    kubePrism: { enabled: false, port: 7445 },
    proxyDisabled: false,
    cni: 'flannel',
    bindAddress: { controllerManager: '127.0.0.1', scheduler: '127.0.0.1' },
  };

  it("is Talos' own default where it says nothing: no unsafe sysctl, no workload on the control plane", () => {
    expect(read(undefined)).toEqual({ facts: TALOS, problems: [] });
    expect(read('machine:\n  kubelet:\n    extraConfig:\n      allowedUnsafeSysctls: [net.ipv4.conf.*]\n')).toEqual({
      facts: { ...TALOS, allowedUnsafeSysctls: ['net.ipv4.conf.*'] },
      problems: [],
    });
    expect(read('cluster: {allowSchedulingOnControlPlanes: true}\nmachine: {nodeLabels: {gpu: intel}}\n')).toEqual({
      facts: { ...TALOS, allowSchedulingOnControlPlanes: true, nodeLabels: { gpu: 'intel' } },
      problems: [],
    });
    // KubePrism: off where the config says nothing (the type's default), its port 7445 where it names none or 0.
    expect(read('machine: {features: {kubePrism: {enabled: true}}}\n').facts.kubePrism).toEqual({ enabled: true, port: 7445 });
    expect(read('machine: {features: {kubePrism: {enabled: true, port: 0}}}\n').facts.kubePrism).toEqual({ enabled: true, port: 7445 });
    expect(read('machine: {features: {kubePrism: {enabled: true, port: 7446}}}\n').facts.kubePrism).toEqual({ enabled: true, port: 7446 });
    // kube-proxy: Talos runs it unless cluster.proxy.disabled says otherwise.
    expect(read('cluster: {proxy: {disabled: true}}\n').facts.proxyDisabled).toBe(true);
    expect(read('cluster: {scheduler: {extraArgs: {bind-address: 0.0.0.0}}}\n').facts.bindAddress).toEqual({
      controllerManager: '127.0.0.1',
      scheduler: '0.0.0.0',
    });
    // Talos' own CNI: flannel where the config names none.
    expect(read('cluster: {network: {cni: {name: none}}}\n').facts.cni).toBe('none');
    expect(read('cluster: {network: {cni: {name: calico}}}\n').problems).toEqual([
      'cluster fact "machineConfig": cluster.network.cni.name must be flannel, custom, none',
    ]);
    expect(read('machine: {features: {kubePrism: {enabled: yes, port: 70000}}}\n').problems).toEqual([
      'cluster fact "machineConfig": machine.features.kubePrism.enabled must be true or false',
      'cluster fact "machineConfig": machine.features.kubePrism.port must be a port number',
    ]);
    expect(read('machine: {nodeLabels: {gpu: [intel]}}\n').problems).toEqual([
      'cluster fact "machineConfig": machine.nodeLabels must map label keys to string values',
    ]);
  });

  it('names what it cannot read, a key it does not read included, so a misspelt key is not taken for the default', () => {
    const reads =
      'machine.kubelet.extraConfig.allowedUnsafeSysctls, machine.nodeLabels, machine.features.kubePrism.enabled, machine.features.kubePrism.port, cluster.allowSchedulingOnControlPlanes, cluster.proxy.disabled, cluster.network.cni.name, cluster.controllerManager.extraArgs.bind-address and cluster.scheduler.extraArgs.bind-address';
    expect(read('- net.core.somaxconn\n').problems).toEqual([`cluster fact "machineConfig" must be a YAML mapping of the machine config's ${reads}`]);
    expect(read('machine:\n  kubelet:\n    extraConfig:\n      allowedUnsafeSysctl: [net.core.somaxconn]\n').problems).toEqual([
      `cluster fact "machineConfig": machine.kubelet.extraConfig.allowedUnsafeSysctl is not read by the gate, which reads ${reads} alone`,
    ]);
    expect(read('machin: {kubelet: {}}\n').problems).toEqual([`cluster fact "machineConfig": machin is not read by the gate, which reads ${reads} alone`]);
    expect(read('machine: {kubelet: {extraConfig: {allowedUnsafeSysctls: net.core.somaxconn}}}\ncluster: {allowSchedulingOnControlPlanes: "yes"}\n')).toEqual({
      facts: TALOS,
      problems: [
        'cluster fact "machineConfig": machine.kubelet.extraConfig.allowedUnsafeSysctls must be a list of sysctl names or patterns ending in *',
        'cluster fact "machineConfig": cluster.allowSchedulingOnControlPlanes must be true or false',
      ],
    });
    expect(read('machine: [a\n').problems[0]).toMatch(/^cluster fact "machineConfig" does not parse: /);
  });
});
