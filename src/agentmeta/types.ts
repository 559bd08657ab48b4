// The rungrad-agentmeta/1 document: an inventory of a CLI for agents, derived
// purely from a validated manifest. Field order here is the wire order.

import type { ExtensionSet, Flag } from "../manifest/types.js";

export const AGENTMETA_SCHEMA_VERSION = "rungrad-agentmeta/1";

export const CONFIRMATION_NOTE =
  "Require explicit user confirmation before executing this command and inspect product documentation for the confirmation mechanism.";

/** A flag as the manifest describes it; the document copies it field for field. */
export type AgentFlag = Flag;

export interface AgentCommand {
  path: string[];
  use: string;
  short: string;
  examples: string[];
  related: string[];
  output_modes: string[];
  local_flags: AgentFlag[];
  required_local_flags: AgentFlag[];
  requires_auth: boolean;
  mutates: boolean;
  supports_dry_run: boolean;
  destructive: boolean;
  requires_confirmation: boolean;
  supports_meta: boolean;
  /** Omitted when the manifest command has none (an empty set is omitted too). */
  extensions?: ExtensionSet;
  is_root: boolean;
  has_children: boolean;
  command_template: string;
  usage_template: string;
  /** "" when not applicable; likewise the two below. */
  machine_usage_template: string;
  dry_run_usage_template: string;
  confirmation_note: string;
}

export interface AgentMetaDocument {
  schema_version: string;
  spec_version: string;
  tool_name: string;
  tool_version: string;
  global_flags: AgentFlag[];
  commands: AgentCommand[];
}
