/**
 * traefik-headers-read: a Content-Security-Policy a Traefik headers Middleware sends is one the browser reads as
 * written (model/traefik/headers.ts). Traefik sends the text it is given, the API server stores it, and nothing else
 * reads it: a misspelt directive (`farme-ancestors`), a missing `;`, an unquoted or unknown keyword or a repeated
 * directive is skipped by the browser with a console warning, and the response goes out without the protection the
 * directive meant. The public API's Middleware writes the same policy its app sets (portfolio-api/src/app.ts), which
 * this one replaces on every response through the proxy.
 */
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { middlewarePolicies, policyMisreadings } from '../../model/traefik/headers.ts';

export const traefikHeadersCheck: PolicyCheck = {
  id: 'traefik-headers-read',
  description:
    "Every Content-Security-Policy a Traefik headers Middleware sends (headers.contentSecurityPolicy, contentSecurityPolicyReportOnly, or a customResponseHeaders entry of either name) is read by the browser as written, as Google's CSP Evaluator parses it (csp_evaluator, the syntax checks Lighthouse reports): each directive one browsers know and given once, each keyword quoted and one they know, and no directive read as a source of the one before it for a missing semicolon; otherwise Traefik sends it and the API server stores it, the browser skips what it cannot read, and the protection the directive meant is gone (invariants P1).",
  invariants: ['P1'],
  remediation: 'write each directive as the CSP specification names it, once, end each with a semicolon, and quote its keywords',
  reads: { kinds: ['Middleware'] },
  exemptible: false,
  run(ctx) {
    for (const resource of ctx.resources.filter((r) => r.kind === 'Middleware' && r.apiVersion.startsWith('traefik.')))
      for (const { header, text, path } of middlewarePolicies(resource.object))
        for (const misread of policyMisreadings(text)) ctx.fail({ resource, path }, `Middleware ${resource.name} sends ${header}: ${misread}`);
  },
};
