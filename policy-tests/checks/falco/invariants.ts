/** Runtime security (S), in this project's own words: what the Falco checks and the exemption step cite. */
export const SECURITY_INVARIANTS: Readonly<Record<string, string>> = {
  S1: 'The sensor runs the modern eBPF driver on all six nodes, with syscalls as its only event source: no plugins, no audit log.',
  S2: 'The event forwarder runs 2 replicas and posts to chat from priority notice up; its web UI is off.',
  S3: 'Rules come from upstream falco-rules 5, pulled at start and checked every 168 hours, plus one custom tuning file rendered to a config map.',
  S4: "The sensor's network policy lets it out on 443, since it fetches the upstream ruleset to start.",
  S5: 'Sensor metrics use a 15-minute stats interval.',
  S6: 'Tuning goes only through hooks; no upstream rule is copied and edited.',
  S7: 'Macros are overridden whole (condition: replace) with their full intent, lists extended with items: append; a rule may take condition: append with and not (...) only when its sole hook is a list matched too broadly.',
  S8: 'Each exemption is scoped to the process, image and path involved.',
  S9: 'An exemption for a generic image that many containers share also pins the namespace of the workload meant.',
  S10: 'The container-boundary rules (escape, kernel module load, release_agent, debugfs) stay armed for exempted images.',
};
