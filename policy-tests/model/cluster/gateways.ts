/**
 * The two ingress proxies' classes (apps/platform/ingress-public/ and ingress-private/, each declaring its
 * IngressClass): the public one, where the router forwards 80 and 443, and the one that serves the LAN only.
 */
export const PUBLIC_GATEWAY = 'gateway';
export const LAN_GATEWAY = 'private-gateway';
