// Builds the rungrad-manifest/1 document from the command tree that also renders help (§a emission rules).

import { compareBytes } from "../json/stable.js";
import { decodeExtensions, encodeExtensions } from "../manifest/extensions.js";
import type { Command, ExtensionSet, Flag, Manifest } from "../manifest/types.js";
import { MANIFEST_SCHEMA_VERSION, SPEC_VERSION } from "../manifest/types.js";
import { FEWER_EFFECTS_GLOBALS, type CommandNode } from "./command.js";
import type { FlagDef } from "./flags.js";

/** Canonical compact JSON for a command's extensions ("" when empty), as the builder writes the annotation. */
export function encodeExtensionsAnnotation(set: ExtensionSet | undefined): string {
  if (!set || Object.keys(set).length === 0) return "";
  return encodeExtensions(set);
}

function wireFlag(f: FlagDef): Flag {
  return { name: f.name, shorthand: f.shorthand, usage: f.usage, default: f.defValue, type: f.type, required: f.required };
}

function sortedVisible(flags: readonly FlagDef[]): Flag[] {
  return flags
    .filter((f) => !f.hidden)
    .sort((a, b) => compareBytes(a.name, b.name))
    .map(wireFlag);
}

/** Whether some command accepts the global `f` (every global does, unless the app scopes them). */
function accepted(root: CommandNode, f: FlagDef): boolean {
  const somewhere = (node: CommandNode): boolean => node.globalActs(f) || node.children.some(somewhere);
  return !root.scopedGlobals || FEWER_EFFECTS_GLOBALS.has(f.id ?? "") || somewhere(root);
}

/** Whether a node and its subtree appear in the manifest. */
function emitted(node: CommandNode): boolean {
  return !node.hidden && node.kind !== "help" && node.kind !== "completion" && node.kind !== "endpoint";
}

/** The manifest of a built tree; `hasVersion` drops a local `version`. */
export function buildManifest(root: CommandNode, toolVersion: string, hasVersion: boolean): Manifest {
  const globalNames = new Set(root.persistent.map((f) => f.name));
  const commands: Command[] = [];
  const visit = (node: CommandNode): void => {
    const local = node.flags.filter((f) => !globalNames.has(f.name) && f.name !== "help" && !(hasVersion && f.name === "version"));
    const cmd: Command = {
      path: node.path(),
      use: node.spec.use,
      short: node.spec.short,
      examples: [...(node.spec.examples ?? [])],
      related: [...(node.spec.related ?? [])],
      output_modes: [...node.outputModes],
      requires_auth: node.spec.requiresAuth ?? false,
      mutates: node.mutates,
      supports_dry_run: node.mutates,
      destructive: node.spec.destructive ?? false,
      requires_confirmation: node.spec.destructive ?? false,
      supports_meta: node.spec.supportsMeta ?? false,
      local_flags: sortedVisible(local),
    };
    if (node.extensionsAnnotation !== "") {
      let set: ExtensionSet | undefined;
      try {
        set = decodeExtensions(node.extensionsAnnotation);
      } catch (err) {
        throw new Error(`command "${node.path().join(" ")}": invalid rungrad.extensions annotation: ${(err as Error).message}`, { cause: err });
      }
      if (set && Object.keys(set).length > 0) cmd.extensions = set;
    }
    commands.push(cmd);
    [...node.children].sort((a, b) => compareBytes(a.name, b.name)).filter(emitted).forEach(visit);
  };
  visit(root);
  return {
    schema_version: MANIFEST_SCHEMA_VERSION,
    spec_version: SPEC_VERSION,
    tool_name: root.name,
    tool_version: toolVersion,
    global_flags: sortedVisible(root.persistent.filter((f) => accepted(root, f))),
    commands,
  };
}
