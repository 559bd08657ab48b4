// The manifest-discovery summary a Score embeds (wire field order), and its statuses.

export type ManifestStatus = "disabled" | "missing" | "present" | "invalid" | "unsupported";

export interface ManifestSummary {
  status: ManifestStatus;
  schema_version: string;
  tool_name: string;
  tool_version: string;
  command_count: number;
  reason: string;
  /** Filled by the scorer, not by discovery. */
  used_rule_count: number;
  used_rules: string[];
}

export const REASON_DISCOVERY_DISABLED = "manifest discovery disabled";
export const REASON_DISCOVERY_NOT_RUN = "manifest discovery was not run";

/** A summary with only status and reason set (the rest zero, in wire order). */
export function summaryOf(status: ManifestStatus, reason: string): ManifestSummary {
  return { status, schema_version: "", tool_name: "", tool_version: "", command_count: 0, reason, used_rule_count: 0, used_rules: [] };
}
