/**
 * What the API server refuses in a Service's update (k8s.io/kubernetes v1.36, pkg/apis/core/validation,
 * ValidateServiceUpdate): what the cluster allocated at its creation stays.
 */
import type { Invalid } from './metadata.ts';
import { refuse, unknown, type Obj, type UpdateCluster } from './update-verdicts.ts';

const isLoadBalancer = (o: Obj) => o.spec?.type === 'LoadBalancer';

const FN = 'ValidateServiceUpdate';
const families = (o: Obj): unknown[] | undefined =>
  Array.isArray(o.spec?.ipFamilies) && o.spec.ipFamilies.length ? (o.spec.ipFamilies as unknown[]) : undefined;
const isHeadless = (o: Obj) => o.spec?.clusterIP === 'None' || (Array.isArray(o.spec?.clusterIPs) && o.spec.clusterIPs[0] === 'None');

/**
 * validateUpgradeDowngradeIPFamilies: a Service that is neither headless nor ExternalName keeps its primary IP family,
 * may add a secondary, and releases one only with ipFamilyPolicy SingleStack (or none, which the allocator fills in
 * so before validation). A manifest that names no families keeps
 * the cluster's (the allocator fills them in from the live object); one that names them where the last did not meets
 * the family the cluster chose at creation: its default, as the facts say it, else not judged.
 */
function ipFamiliesUpdate(old: Obj, next: Obj, clusterFamilies: readonly string[] | undefined): Invalid[] {
  if ([old, next].some((o) => o.spec?.type === 'ExternalName' || isHeadless(o))) return [];
  const is = families(next);
  if (!is) return [];
  const path = ['spec', 'ipFamilies'];
  const shown = JSON.stringify(is);
  // A Service created without families holds the cluster's (initIPFamilyFields): its default family, and the other
  // too where the cluster has two and the Service asked for dual-stack.
  const dual = old.spec?.ipFamilyPolicy === 'PreferDualStack' || old.spec?.ipFamilyPolicy === 'RequireDualStack';
  const was = families(old) ?? (clusterFamilies?.length ? (dual ? [...clusterFamilies] : [clusterFamilies[0]]) : undefined);
  if (!was)
    return [
      unknown(
        path,
        FN,
        `names ipFamilies ${shown}, where the cluster chose the Service's family at its creation: refused unless ${String(is[0])} was its primary`,
      ),
    ];
  const out: Invalid[] = [];
  const changed = is.length === was.length ? is.some((f, i) => f !== was[i]) : is[0] !== was[0];
  if (changed) out.push(refuse(path, FN, `spec.ipFamilies[0]: Invalid value: ${shown}: may not change once set (was ${JSON.stringify(was)})`));
  // A policy left out is filled in before validation: SingleStack for one family (the allocator's initIPFamilyFields).
  if (is.length < was.length && next.spec?.ipFamilyPolicy !== undefined && next.spec.ipFamilyPolicy !== 'SingleStack')
    out.push(
      refuse(
        ['spec', 'ipFamilyPolicy'],
        FN,
        `spec.ipFamilyPolicy: Invalid value: ${JSON.stringify(next.spec?.ipFamilyPolicy ?? null)}: must be set to 'SingleStack' when releasing the secondary ipFamily`,
      ),
    );
  return out;
}

/**
 * ValidateServiceUpdate: the cluster address, once allocated, stays (a manifest that names none keeps it:
 * patchAllocatedValues), as do the IP families and a load balancer's class; ExternalName Services allocate none.
 */
export function serviceUpdate(old: Obj, next: Obj, cluster?: Pick<UpdateCluster, 'serviceFamilies'>): Invalid[] {
  const out: Invalid[] = [...ipFamiliesUpdate(old, next, cluster?.serviceFamilies)];
  if (old.spec?.type !== 'ExternalName' && next.spec?.type !== 'ExternalName') {
    const [was, is] = [old.spec?.clusterIP ?? old.spec?.clusterIPs?.[0], next.spec?.clusterIP ?? next.spec?.clusterIPs?.[0]];
    const path = ['spec', next.spec?.clusterIP !== undefined ? 'clusterIP' : 'clusterIPs'];
    if (is !== undefined && is !== '' && was !== is) {
      if (was === undefined || was === '') {
        // The cluster allocated an address at creation: "None" is never one, any other may or may not be it.
        if (is === 'None')
          out.push(refuse(path, FN, `spec.clusterIPs[0]: Invalid value: ["None"]: may not change once set (the Service has an allocated address)`));
        else out.push(unknown(path, FN, `names clusterIP ${String(is)}, where the cluster allocated one at creation: refused unless it is that address`));
      } else out.push(refuse(path, FN, `spec.clusterIPs[0]: Invalid value: ["${String(is)}"]: may not change once set (was ${String(was)})`));
    }
  }
  if (isLoadBalancer(old) && isLoadBalancer(next) && (old.spec?.loadBalancerClass ?? null) !== (next.spec?.loadBalancerClass ?? null))
    out.push(
      refuse(
        ['spec', 'loadBalancerClass'],
        FN,
        `spec.loadBalancerClass: Invalid value: ${JSON.stringify(next.spec?.loadBalancerClass ?? null)}: may not change once set`,
      ),
    );
  return out;
}
