// What keeps a pack's verbs from being MCP tools (§8), in the words hcp serve refuses (or skips the pack) with and hcp init warns with:
// two verbs with one tool name, or a verb argument named like an argument the MCP tools add; and the note hcp init
// writes when a long pack id leaves tool names cut to a hash. Pure.

import { MAX_TOOL_NAME, toolName, uncutToolName } from "./fields.js";
import { isObject } from "./issues.js";
import type { JsonSchema } from "./types.js";

/** The arguments every previewable (dry_run) or gated (confirm) tool takes besides the verb's own. */
export const MCP_CONTROL_ARGUMENTS: readonly string[] = ["dry_run", "confirm"];

/** Why two verbs cannot both be tools, and what to do. */
export function toolNameTaken(name: string, first: string, second: string): string {
  return `tool name ${name} is taken twice: by ${first} and by ${second} (a tool name is <pack>_<verb>, every character outside A-Z, a-z, 0-9, _ and - as _); rename one (its verb key in surface.json and policy.json, or its pack's id)`;
}

/** Why a verb with an argument named `name` cannot be a tool, and what to do. */
export function controlArgumentTaken(packId: string, verb: string, name: string): string {
  return `verb ${JSON.stringify(verb)} of pack ${JSON.stringify(packId)} has an argument named ${name}, which every MCP tool that writes or needs confirmation takes for dry runs and confirmation; serve it without this verb (--exclude ${toolName(packId, verb)}, or deny it in policy.json), or rename the argument`;
}

/** The problems that keep hcp serve --mcp from serving the pack (refusing to start, or leaving it out of a folder of packs), one sentence each. */
export function mcpToolProblems(packId: string, verbs: Readonly<Record<string, { args?: JsonSchema | undefined }>>): string[] {
  const problems: string[] = [];
  const owners = new Map<string, string>();
  for (const [key, verb] of Object.entries(verbs)) {
    const name = toolName(packId, key);
    const owner = `verb ${JSON.stringify(key)} of pack ${JSON.stringify(packId)}`;
    const taken = owners.get(name);
    if (taken !== undefined) problems.push(toolNameTaken(name, taken, owner));
    else owners.set(name, owner);
    const properties = isObject(verb.args) && isObject(verb.args["properties"]) ? verb.args["properties"] : {};
    for (const arg of MCP_CONTROL_ARGUMENTS) if (Object.hasOwn(properties, arg)) problems.push(controlArgumentTaken(packId, key, arg));
  }
  return problems;
}

/**
 * hcp init's note when tool names are longer than MCP allows and so end in a hash (`…_secu_85e7ad84`), which an agent
 * cannot read: a long pack id (an API's title) does it to nearly every verb, and `--id` gives a shorter one. None when no name is cut.
 */
export function cutToolNames(packId: string, verbs: readonly string[]): string[] {
  const cut = verbs.filter((v) => uncutToolName(packId, v).length > MAX_TOOL_NAME);
  if (cut.length === 0) return [];
  const example = cut[0]!;
  // Those a pack id of one character would keep whole: for the others only a shorter verb key does (Jira's, whose id
  // is already `jira`).
  const byId = cut.filter((v) => uncutToolName("x", v).length <= MAX_TOOL_NAME).length;
  const advice =
    byId === 0
      ? "their verbs' keys are too long for any pack id: give such a verb a shorter key (in surface.json and policy.json) to keep its tool's name whole"
      : `a shorter pack id (hcp init --id NAME) keeps ${byId === cut.length ? "them" : `${byId} of them`} whole${byId === cut.length ? "" : "; the others' verb keys are too long for any pack id"}`;
  return [`${cut.length} of ${verbs.length} MCP tool names (<pack>_<verb>) are longer than ${MAX_TOOL_NAME} characters and end in a hash instead (verb "${example}" is tool ${toolName(packId, example)}); ${advice}`];
}
