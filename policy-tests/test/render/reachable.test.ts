/** The remote base's host asked before kustomize runs: only a clear "does not resolve" short-cuts the fetch. */
import { describe, expect, it } from 'vitest';
import { unresolvable } from '../../render/reachable.ts';

const URL_ = 'https://raw.githubusercontent.com/argoproj/argo-cd/v3.5.1/manifests/install.yaml';
const failing = (code: string) => () => Promise.reject(Object.assign(new Error(code), { code }));

describe('a remote base that cannot be fetched from here', () => {
  it("is said in kubectl's words when its host does not resolve, or resolution fails for now", async () => {
    expect(await unresolvable([URL_], {}, failing('ENOTFOUND'))).toBe('dial tcp: lookup raw.githubusercontent.com: no such host');
    expect(await unresolvable([URL_], {}, failing('EAI_AGAIN'))).toBe('dial tcp: lookup raw.githubusercontent.com: temporary failure in name resolution');
  });

  it('is left to kustomize when the host resolves, the answer is slow or unclear, a proxy is set, or the locator is not a URL', async () => {
    let asked = 0;
    const counted = () => {
      asked++;
      return Promise.resolve();
    };
    expect(await unresolvable([URL_], {}, counted)).toBeUndefined();
    expect(await unresolvable([URL_], {}, () => new Promise(() => {}), 1)).toBeUndefined();
    expect(await unresolvable([URL_], {}, failing('ECONNREFUSED'))).toBeUndefined();
    expect(await unresolvable([URL_], { HTTPS_PROXY: 'http://127.0.0.1:3128' }, failing('ENOTFOUND'))).toBeUndefined();
    expect(await unresolvable(['github.com/argoproj/argo-cd//manifests?ref=v3.5.1'], {}, counted)).toBeUndefined();
    expect(asked).toBe(1);
  });
});
