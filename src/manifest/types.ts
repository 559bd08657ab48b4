// The rungrad-manifest/1 wire schema: the self-description every rungrad CLI prints
// from its hidden __rungrad_manifest command. Field order here is the wire order.

import type { JsonNumber } from "../json/stable.js";

export const MANIFEST_SCHEMA_VERSION = "rungrad-manifest/1";
export const SPEC_VERSION = "rungrad-spec/1";
export const MANIFEST_ENDPOINT = "__rungrad_manifest";

/** One extension value: JSON without null; numbers may keep their literal text. */
export type ExtensionValue =
  | string
  | boolean
  | number
  | JsonNumber
  | readonly ExtensionValue[]
  | { readonly [key: string]: ExtensionValue };

/** One namespace's JSON-object payload. */
export type ExtensionObject = { readonly [field: string]: ExtensionValue };

/**
 * Product-owned namespaced metadata, namespace → object. A decoded set uses
 * null-prototype objects (dictionaries) at every level, so its keys sort on output.
 * A null namespace value is representable (Go's nil map) and fails validation.
 */
export type ExtensionSet = { readonly [namespace: string]: ExtensionObject | null };

export interface Flag {
  name: string;
  shorthand: string;
  usage: string;
  /** pflag's DefValue: bool "false", string "", stringArray "[]". */
  default: string;
  /** pflag's type name: bool, string, int, stringArray, … */
  type: string;
  required: boolean;
}

/**
 * A command. Slices are `null` where the wire had null or no key (Go's nil slice),
 * which validation rejects; `[]` is valid.
 */
export interface Command {
  path: string[] | null;
  use: string;
  short: string;
  examples: string[] | null;
  related: string[] | null;
  output_modes: string[] | null;
  requires_auth: boolean;
  mutates: boolean;
  supports_dry_run: boolean;
  destructive: boolean;
  requires_confirmation: boolean;
  supports_meta: boolean;
  local_flags: Flag[] | null;
  /** Omitted (absent) when the command has none. */
  extensions?: ExtensionSet;
}

export interface Manifest {
  schema_version: string;
  spec_version: string;
  tool_name: string;
  tool_version: string;
  global_flags: Flag[] | null;
  commands: Command[] | null;
}

/** A validated manifest: every slice is present. */
export interface ValidCommand extends Command {
  path: string[];
  examples: string[];
  related: string[];
  output_modes: string[];
  local_flags: Flag[];
}
export interface ValidManifest extends Manifest {
  global_flags: Flag[];
  commands: ValidCommand[];
}
