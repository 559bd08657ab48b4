// Command policy for SKILL.md: which canonical machine flags exist and how each runnable command is classified and quoted.

import { canonicalGlobals } from "../agentmeta/project.js";
import type { AgentCommand, AgentFlag, AgentMetaDocument } from "../agentmeta/types.js";
import { codeSpan } from "./text.js";

/** The canonical machine globals of a document, and the rungrad update pattern if present. */
export interface Capabilities {
  json: boolean;
  noPrompt: boolean;
  dryRun: boolean;
  /** The `update` command with a local `--check` flag whose install path mutates. */
  update: AgentCommand | undefined;
  /** Some destructive command documents a local `--confirm` flag. */
  confirm: boolean;
}

/** One row of the Generated Command Reference: raw command text, its short text, and the rendered policy. */
export interface CommandRow {
  command: string;
  short: string;
  policy: string;
}

type Kind = "read" | "mutate" | "destroy";

export function capabilities(doc: AgentMetaDocument): Capabilities {
  const canonical = canonicalGlobals(doc.global_flags);
  return {
    json: canonical.has("json"),
    noPrompt: canonical.has("no-prompt"),
    dryRun: canonical.has("dry-run"),
    update: doc.commands.find(isUpdateInstall),
    confirm: doc.commands.some((c) => kind(c) === "destroy" && hasConfirmFlag(c)),
  };
}

/**
 * The reference rows: every runnable command (one without children; a root
 * without children counts) classified by its manifest metadata. Order:
 * read-only rows, the update --check row, mutating rows, the update install
 * row, destructive rows; manifest order inside each group.
 */
export function commandRows(doc: AgentMetaDocument, caps: Capabilities): CommandRow[] {
  const groups: Record<Kind, CommandRow[]> = { read: [], mutate: [], destroy: [] };
  for (const c of doc.commands) {
    if (c.has_children || c === caps.update) continue;
    groups[kind(c)].push({ command: c.usage_template, short: c.short, policy: policy(c) });
  }
  const update = caps.update ? updateRows(caps.update, caps) : { check: [], install: [] };
  return [...groups.read, ...update.check, ...groups.mutate, ...update.install, ...groups.destroy];
}

/** The update pattern's two rows: the read-only check and the mutating install path. */
function updateRows(update: AgentCommand, caps: Capabilities): { check: CommandRow[]; install: CommandRow[] } {
  const machine = update.output_modes.includes("json") && caps.json && caps.noPrompt;
  const check = codeSpan(update.command_template + " --check" + (machine ? " --json --no-prompt" : ""), "update check");
  const dryRun = update.dry_run_usage_template;
  return {
    // A synthesised row: the update command's short text describes the install, so it gets none.
    check: [{ command: update.command_template + " --check", short: "", policy: `Read-only scaffold update check. Prefer ${check}.` }],
    install: [
      {
        command: update.usage_template,
        short: update.short,
        policy:
          `Mutating install path. Prefer ${check} unless the user asks to install; then ` +
          (dryRun ? `run ${codeSpan(dryRun, "dry-run template")} first.` : "require explicit user confirmation before real execution."),
      },
    ],
  };
}

function policy(c: AgentCommand): string {
  const dryRun = c.dry_run_usage_template ? codeSpan(c.dry_run_usage_template, "dry-run template") : "";
  switch (kind(c)) {
    case "read":
      return c.machine_usage_template ? `Read-only. Prefer ${codeSpan(c.machine_usage_template, "machine usage template")} for parseable output.` : "Read-only.";
    case "mutate":
      return dryRun
        ? `Mutating. Run ${dryRun} first and review the preview before real execution.`
        : `Mutating. ${NO_DRY_RUN} before real execution.`;
    case "destroy":
      return (
        "Destructive. " +
        (dryRun ? `Run ${dryRun} first, require explicit user confirmation` : `${NO_DRY_RUN}`) +
        " before real execution, " +
        (hasConfirmFlag(c) ? "and use `--confirm` only after that confirmation." : "and inspect product documentation for the confirmation mechanism.")
      );
  }
}

const NO_DRY_RUN = "No dry-run preview is generated; require explicit user confirmation";

function kind(c: AgentCommand): Kind {
  if (c.destructive || c.requires_confirmation) return "destroy";
  return c.mutates ? "mutate" : "read";
}

function isUpdateInstall(c: AgentCommand): boolean {
  return c.path.length === 1 && c.path[0] === "update" && !c.has_children && kind(c) === "mutate" && hasFlag(c.local_flags, "check");
}

function hasConfirmFlag(c: AgentCommand): boolean {
  return hasFlag(c.local_flags, "confirm");
}

/** A local boolean switch that is off by default, as Go's scaffold checks for --check and --confirm. */
function hasFlag(flags: readonly AgentFlag[], name: string): boolean {
  return flags.some((f) => f.name === name && f.type === "bool" && f.default === "false");
}
