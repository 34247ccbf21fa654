/** The infrastructure status the API serves: what the status writer puts in the file, and the built-in snapshot. */
export interface InfraStatus {
  generatedAt: string;
  build: string;
  argocd: { sync: string; health: string };
  nodes: { ready: number; total: number };
  versions: { kubernetes: string; talos: string };
  cert: { notAfter: string };
  history: { d: string; ok: number; total: number }[];
  source?: 'snapshot';
}
