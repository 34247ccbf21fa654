/**
 * The profile shown on the portfolio site. Edit this module; the API and the
 * site read it, and it is refreshed on each deploy.
 */
export interface Profile {
  name: string;
  role: string;
  location: string;
  url: string;
  summary: string;
  socials: { label: string; href: string }[];
  certifications: { title: string; issuer: string; date: string }[];
  /** level: 1 (learning) to 5 (expert). */
  skills: { label: string; level: number; group: string }[];
}

export const profile: Profile = {
  name: 'Homelab Operator',
  role: 'Platform engineer',
  location: 'Oslo, Norway',
  url: 'https://portfolio.example.net',
  summary: 'Runs a six-node Talos cluster at home, managed entirely from git with Argo CD, and writes about what breaks.',
  socials: [
    { label: 'GitHub', href: 'https://github.com/homelab-operator' },
    { label: 'Blog', href: 'https://blog.example.net' },
  ],
  certifications: [
    { title: 'Certified Kubernetes Administrator', issuer: 'The Linux Foundation', date: 'March 2025' },
    { title: 'Certified Kubernetes Security Specialist', issuer: 'The Linux Foundation', date: 'October 2025' },
  ],
  skills: [
    { label: 'Kubernetes', level: 5, group: 'Platform' },
    { label: 'Argo CD', level: 5, group: 'Platform' },
    { label: 'Prometheus', level: 4, group: 'Observability' },
    { label: 'TypeScript', level: 4, group: 'Development' },
    { label: 'Falco', level: 3, group: 'Security' },
  ],
};
