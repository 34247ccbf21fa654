/**
 * The nodeNetwork cluster fact, read as the gate reads it: the real repository's block, and each way a block can
 * be wrong (an address off the subnet, one address given twice, counts that disagree with nodeCount and
 * controlPlaneCount, a subnet that is no CIDR, the wrong shape).
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { CLUSTER_FACTS_FILE } from '../../model/repository/cluster-facts.ts';
import { cidrWithin, onSegment, parsePortRange, readNodeNetwork, reservedAddresses } from '../../model/repository/node-network.ts';
import { REPO_ROOT } from '../../model/repository/repo.ts';

const COUNTS = { nodeCount: 6, controlPlaneCount: 3 };
const block = (lines: string[]) => lines.join('\n');
const GOOD = block([
  'subnet: 10.1.0.0/24',
  'gateway: 10.1.0.1',
  'vip: 10.1.0.10',
  'controlPlane: [10.1.0.11, 10.1.0.12, 10.1.0.13]',
  'workers: [10.1.0.21, 10.1.0.22, 10.1.0.23]',
  'pods: 10.244.0.0/16',
  'services: 10.96.0.0/12',
]);

describe('the nodeNetwork fact', () => {
  it("reads the real repository's block with no problem", () => {
    const data = (parse(readFileSync(join(REPO_ROOT, CLUSTER_FACTS_FILE), 'utf8')) as { data: Record<string, string> }).data;
    const { network, problems } = readNodeNetwork(data.nodeNetwork, { nodeCount: Number(data.nodeCount), controlPlaneCount: Number(data.controlPlaneCount) });
    expect(problems).toEqual([]);
    expect(network!.controlPlane).toHaveLength(Number(data.controlPlaneCount));
  });

  it('knows what the segment already uses, and what lies on it', () => {
    const { network, problems } = readNodeNetwork(GOOD, COUNTS);
    expect(problems).toEqual([]);
    expect(reservedAddresses(network!).get('10.1.0.1')).toBe('the gateway');
    expect(reservedAddresses(network!).get('10.1.0.22')).toBe('a worker node');
    expect([onSegment(network!, '10.1.0.255'), onSegment(network!, '10.1.1.0'), onSegment(network!, 'not-an-ip')]).toEqual([true, false, false]);
  });

  it('names an address off the subnet, an address given twice, and counts that disagree', () => {
    const { network, problems } = readNodeNetwork(
      block([
        'subnet: 10.1.0.0/24',
        'gateway: 10.1.0.1',
        'controlPlane: [10.1.0.11, 10.2.0.12]',
        'workers: [10.1.0.11, 10.1.0.21, 10.1.0.22]',
        'pods: 10.244.0.0/16',
        'services: 10.96.0.0/12',
      ]),
      COUNTS,
    );
    expect(network).toBeDefined();
    expect(problems).toEqual([
      'cluster fact "nodeNetwork": a control-plane node (10.2.0.12) is outside the subnet 10.1.0.0/24',
      'cluster fact "nodeNetwork": 10.1.0.11 is both a control-plane node and a worker',
      'cluster fact "nodeNetwork" lists 2 control-plane nodes, and controlPlaneCount is 3',
      'cluster fact "nodeNetwork" lists 5 nodes, and nodeCount is 6',
    ]);
  });

  it('refuses a missing fact, a subnet that is no CIDR, and a block of the wrong shape, in one line each', () => {
    expect(readNodeNetwork(undefined, COUNTS).problems).toEqual([expect.stringMatching(/^cluster fact "nodeNetwork" is missing/)]);
    expect(readNodeNetwork(GOOD.replace('10.1.0.0/24', '10.1.0.0/33'), COUNTS).problems).toEqual([
      'cluster fact "nodeNetwork": subnet "10.1.0.0/33" is not a CIDR',
    ]);
    expect(readNodeNetwork(GOOD.replace('gateway: 10.1.0.1', 'gateway: router.lan'), COUNTS).problems).toEqual([
      expect.stringMatching(/must be a YAML mapping/),
    ]);
    expect(readNodeNetwork('subnet: [', COUNTS).problems).toEqual([expect.stringMatching(/^cluster fact "nodeNetwork" does not parse: /)]);
    expect(readNodeNetwork(GOOD.replace('pods: 10.244.0.0/16\n', ''), COUNTS).problems).toEqual([expect.stringMatching(/pods and services/)]);
    expect(readNodeNetwork(GOOD.replace('services: 10.96.0.0/12', 'services: 10.96.0.0'), COUNTS).problems).toEqual([
      'cluster fact "nodeNetwork": services "10.96.0.0" is not a CIDR',
    ]);
  });

  it("reads the LAN's machines by name where the block lists them, and refuses a list of anything but host names", () => {
    expect(readNodeNetwork(GOOD, COUNTS).network?.hosts).toBeUndefined();
    expect(readNodeNetwork(`${GOOD}\nhosts: [nas.lan, pve1.lan]`, COUNTS)).toMatchObject({ network: { hosts: ['nas.lan', 'pve1.lan'] }, problems: [] });
    for (const hosts of ['nas.lan', '[nas_lan]', '[-nas.lan]', '[nas..lan]', '[10]'])
      expect(readNodeNetwork(`${GOOD}\nhosts: ${hosts}`, COUNTS).problems, hosts).toEqual([
        `cluster fact "nodeNetwork": hosts lists the names of the LAN's machines the cluster reaches (nas.lan), each a host name`,
      ]);
  });

  it("reads the router's port forward where the block names one, and refuses one of the wrong shape or off the subnet", () => {
    expect(readNodeNetwork(GOOD, COUNTS).network?.forwards).toBeUndefined();
    expect(readNodeNetwork(`${GOOD}\nforwards: {address: 10.1.0.240, ports: [80, 443]}`, COUNTS)).toMatchObject({
      network: { forwards: { address: '10.1.0.240', ports: [80, 443] } },
      problems: [],
    });
    for (const forwards of [
      '10.1.0.240',
      '{address: 10.1.0.240}',
      '{address: 10.1.0.240, ports: []}',
      '{address: 10.1.0.240, ports: [0]}',
      '{address: router, ports: [80]}',
    ])
      expect(readNodeNetwork(`${GOOD}\nforwards: ${forwards}`, COUNTS).problems, forwards).toEqual([
        `cluster fact "nodeNetwork": forwards is the router's port forward, {address: <an address on the subnet>, ports: [80, 443]}`,
      ]);
    expect(readNodeNetwork(`${GOOD}\nforwards: {address: 10.2.0.240, ports: [443]}`, COUNTS).problems).toEqual([
      'cluster fact "nodeNetwork": the router forwards to 10.2.0.240, outside the subnet 10.1.0.0/24',
    ]);
  });

  it("reads the node-port range as the API server's flag takes it, Kubernetes' default where none is named", () => {
    expect(readNodeNetwork(GOOD, COUNTS).network?.nodePorts).toEqual([30000, 32767]);
    expect(readNodeNetwork(`${GOOD}\nnodePorts: 20000-22767`, COUNTS).network?.nodePorts).toEqual([20000, 22767]);
    expect(readNodeNetwork(`${GOOD}\nnodePorts: 31000-30000`, COUNTS).problems).toEqual([
      'cluster fact "nodeNetwork": nodePorts "31000-30000" is not a port range (30000-32767)',
    ]);
    expect(parsePortRange('30000+2767')).toEqual([30000, 32767]);
    expect(parsePortRange('8080')).toEqual([8080, 8080]);
    for (const bad of ['0-10', '30000-70000', 'a-b', '']) expect(parsePortRange(bad), bad).toBeUndefined();
  });

  it('refuses pod, Service and node networks that overlap: traffic for one would be routed to another', () => {
    expect(readNodeNetwork(GOOD.replace('pods: 10.244.0.0/16', 'pods: 10.0.0.0/8'), COUNTS).problems).toEqual([
      'cluster fact "nodeNetwork": subnet 10.1.0.0/24 and pods 10.0.0.0/8 overlap',
      'cluster fact "nodeNetwork": pods 10.0.0.0/8 and services 10.96.0.0/12 overlap',
    ]);
  });

  it('knows when one CIDR lies inside another, by address and prefix', () => {
    expect([
      cidrWithin('10.96.0.0/12', '10.96.0.0/12'),
      cidrWithin('10.96.0.0/16', '10.96.0.0/12'),
      cidrWithin('10.96.0.0/12', '10.96.0.0/16'),
      cidrWithin('10.112.0.0/16', '10.96.0.0/12'),
      cidrWithin('fd00::/64', '10.0.0.0/8'),
      cidrWithin('10.0.0.0/8', 'nonsense'),
    ]).toEqual([true, true, false, false, false, false]);
  });
});
