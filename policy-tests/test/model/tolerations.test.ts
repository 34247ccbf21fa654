/** A pod's tolerations against the control-plane taint, matched as the scheduler matches them. */
import { describe, expect, it } from 'vitest';
import { CONTROL_PLANE_TAINT, toleratesControlPlane } from '../../model/core/workloads.ts';

describe('toleratesControlPlane', () => {
  it('takes the key with Exists, with Equal and an empty value, with or without the NoSchedule effect, and an empty key', () => {
    expect(toleratesControlPlane([{ key: CONTROL_PLANE_TAINT, operator: 'Exists', effect: 'NoSchedule' }])).toBe(true);
    expect(toleratesControlPlane([{ key: CONTROL_PLANE_TAINT }])).toBe(true);
    expect(toleratesControlPlane([{ key: CONTROL_PLANE_TAINT, operator: 'Equal', value: '' }])).toBe(true);
    expect(toleratesControlPlane([{ operator: 'Exists' }])).toBe(true);
    // As core/v1's ToleratesTaint reads it: no key is any key, and the taint's value is empty. The API server refuses
    // such a toleration before the scheduler sees it (operator must be Exists when key is empty), and says so.
    expect(toleratesControlPlane([{ operator: 'Equal' }])).toBe(true);
  });

  it('refuses another key or effect, a value the taint does not have, an operator it does not know, and no tolerations', () => {
    expect(toleratesControlPlane([{ key: 'node-role.kubernetes.io/master', operator: 'Exists' }])).toBe(false);
    expect(toleratesControlPlane([{ key: CONTROL_PLANE_TAINT, operator: 'Exists', effect: 'NoExecute' }])).toBe(false);
    expect(toleratesControlPlane([{ key: CONTROL_PLANE_TAINT, operator: 'Equal', value: 'true' }])).toBe(false);
    expect(toleratesControlPlane([{ key: CONTROL_PLANE_TAINT, operator: 'Matches' }])).toBe(false);
    expect(toleratesControlPlane([])).toBe(false);
    expect(toleratesControlPlane(undefined)).toBe(false);
  });
});
