// Whether a document's server names a host that stands for the reader's own (Jira's `your-domain.atlassian.net`,
// `{tenant}` left at a default such as `instance`): called as it is, a request would take the person's credential
// and arguments to whoever answers for that name on a multi-tenant service (another tenant's site). Names reserved
// for examples (`api.example.com`) are left to fail as they do: nobody's service answers them. Pure.

/** First labels that name no one's host but the reader's. */
const STANDING_FOR = new Set(["your", "subdomain", "tenant", "instance", "placeholder", "changeme"]);

/** `your-domain`, `yourcompany`, `YOUR_SUBDOMAIN`: a label that says it is the reader's (`my…` names real hosts: myshopify). */
const YOURS = /^your(?:[-_]|domain|company|site|instance|server|host|tenant|org|account|subdomain|shop|store|app|name|team|workspace)/i;

/** The label of `host` that shows it stands for the reader's own, or undefined when none does. */
export function placeholderLabel(host: string): string | undefined {
  const labels = host.toLowerCase().split(".");
  // Only as a subdomain: `tenant.io` and `instance.ai` are names of their own.
  if (labels.length > 2 && STANDING_FOR.has(labels[0]!)) return labels[0];
  return labels.find((label) => YOURS.test(label) || /[{}]|%7b|%7d/.test(label));
}
