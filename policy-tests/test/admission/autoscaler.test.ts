/**
 * A HorizontalPodAutoscaler as pkg/apis/autoscaling/validation judges it (and a PodDisruptionBudget's percentages):
 * its target, each metric's source and target, and its scaling behaviour.
 */
import { describe, expect, it } from 'vitest';
import { validateBuiltin } from '../../admission/validation/kinds.ts';

const hpa = (spec: object) => ({
  metadata: { name: 'web' },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 3, ...spec },
});
const said = (spec: object) => validateBuiltin('HorizontalPodAutoscaler', hpa(spec), 35).map((p) => `${p.path.join('.')}: ${p.message}`);
const cpu = (target: object) => ({ type: 'Resource', resource: { name: 'cpu', target } });

describe('an autoscaler', () => {
  it('admits what charts write: a CPU utilization, a memory average, pods and external metrics, a behaviour', () => {
    expect(
      said({
        metrics: [
          cpu({ type: 'Utilization', averageUtilization: 80 }),
          { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '512Mi' } } },
          { type: 'Pods', pods: { metric: { name: 'requests_per_second' }, target: { type: 'AverageValue', averageValue: '10' } } },
          { type: 'External', external: { metric: { name: 'queue_depth' }, target: { type: 'Value', value: '100' } } },
        ],
        behavior: { scaleDown: { stabilizationWindowSeconds: 300, policies: [{ type: 'Percent', value: 50, periodSeconds: 60 }] } },
      }),
    ).toEqual([]);
  });
  it("refuses a metric that fills another source than its type, a target of no known type, and what a source's target lacks", () => {
    expect(
      said({
        metrics: [
          { type: 'Pods', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
          cpu({ type: 'Percent', averageUtilization: 0 }),
          cpu({ type: 'AverageValue', averageUtilization: 50, averageValue: '-1' }),
          { type: 'External', external: { metric: { name: 'q' }, target: { type: 'Value' } } },
        ],
      }),
    ).toEqual([
      'spec.metrics.0.pods: pods: must populate information for the given metric source',
      'spec.metrics.0.resource: resource: must populate the given metric source only',
      'spec.metrics.1.resource.target.type: type "Percent": must be either Utilization, Value, or AverageValue',
      'spec.metrics.1.resource.target.averageUtilization: averageUtilization 0: must be greater than 0',
      'spec.metrics.2.resource.target.averageValue: averageValue "-1": must be positive',
      'spec.metrics.2.resource.target.averageValue: may not set both a target raw value and a target utilization',
      'spec.metrics.3.external.target.averageValue: must set either a target value for metric or a per-pod target',
    ]);
  });
  it('refuses a behaviour past its bounds, and a target name that cannot stand in a path', () => {
    expect(
      said({
        scaleTargetRef: { kind: 'Deployment', name: 'web/x' },
        behavior: { scaleUp: { stabilizationWindowSeconds: 7200, selectPolicy: 'Avg', policies: [{ type: 'Pods', value: 0, periodSeconds: 3600 }] } },
      }),
    ).toEqual([
      expect.stringMatching(/^spec\.scaleTargetRef\.name: scaleTargetRef name "web\/x": /),
      'spec.behavior.scaleUp.stabilizationWindowSeconds: stabilizationWindowSeconds 7200: must be less than or equal to 3600',
      'spec.behavior.scaleUp.selectPolicy: selectPolicy: Unsupported value: "Avg": supported values: "Disabled", "Max", "Min"',
      'spec.behavior.scaleUp.policies.0.value: value 0: must be greater than zero',
      'spec.behavior.scaleUp.policies.0.periodSeconds: periodSeconds 3600: must be less than or equal to 1800',
    ]);
  });
});

describe('a disruption budget', () => {
  it('refuses a percentage over 100', () => {
    const pdb = { metadata: { name: 'web' }, spec: { minAvailable: '150%', selector: { matchLabels: { app: 'web' } } } };
    expect(validateBuiltin('PodDisruptionBudget', pdb, 35).map((p) => `${p.path.join('.')}: ${p.message}`)).toEqual([
      'spec.minAvailable: minAvailable must not be greater than 100%',
    ]);
  });
});
