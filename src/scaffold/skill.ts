// The --skill files: scaffold-time manifest → validateManifest → fromManifest → the generated-command checks of spec §c → renderSkill.

import { fromManifest, type AgentCommand, type AgentMetaDocument } from "../agentmeta/index.js";
import { validateManifest, type Manifest } from "../manifest/index.js";
import { renderSkill, type AgentFile } from "../skill/index.js";
import { ScaffoldGeneratorError } from "./errors.js";

const fail = (what: string) => new ScaffoldGeneratorError(`scaffold: generated ${what}`);

function command(doc: AgentMetaDocument, ...path: string[]): AgentCommand {
  const found = doc.commands.find((c) => c.path.length === path.length && c.path.every((seg, i) => seg === path[i]));
  if (!found) throw fail(`skill metadata is missing ${path.join(" ") || "root"}`);
  return found;
}

const hasFlag = (c: AgentCommand, name: string) => c.local_flags.some((f) => f.name === name && f.type === "bool" && f.default === "false");

/** Guards against a scaffold whose own commands lost the metadata the skill text promises. */
function checkGeneratedCommands(doc: AgentMetaDocument): void {
  const list = command(doc, "widget", "list");
  const create = command(doc, "widget", "create");
  const del = command(doc, "widget", "delete");
  const update = command(doc, "update");
  if (list.machine_usage_template === "") throw fail("widget list command is missing machine usage metadata");
  if (create.dry_run_usage_template === "") throw fail("widget create command is missing dry-run metadata");
  if (del.dry_run_usage_template === "" || !del.requires_confirmation || !hasFlag(del, "confirm")) {
    throw fail("widget delete command is missing destructive confirmation metadata");
  }
  if (!hasFlag(update, "check") || !update.output_modes.includes("json")) throw fail("update command is missing check/json metadata");
  if (update.dry_run_usage_template === "") throw fail("update command is missing dry-run metadata");
}

/** `.agents/README.md` and `.agents/skills/<tool>/SKILL.md`; only the allowlist of the skill renderer reaches them. */
export function skillFiles(m: Manifest): AgentFile[] {
  validateManifest(m);
  const doc = fromManifest(m);
  checkGeneratedCommands(doc);
  return renderSkill(doc);
}
