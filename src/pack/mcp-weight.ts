// How much of an MCP client's context a pack's tools take (§8), and what the person and the operator are told when it
// is more than clients take: hcp init of the pack it makes, hcp serve and hcp mcp-config of the tools they serve. Pure.

import { toolName, uncutToolName } from "./fields.js";
import { toolDescription, withControls } from "./mcp-tool-text.js";
import { effectivePolicy } from "./policy.js";
import type { PolicyDocument, SurfaceVerb } from "./types.js";

/** Past this many tools a pack is more than many MCP clients and model APIs take at once (128 is a common limit). */
export const CLIENT_TOOLS_MAX = 128;

/**
 * Past this many tokens of tool definitions Claude Code warns ("Large MCP tools context (~N tokens > 25,000)"): a
 * client gives the model every tool's name, description and input schema on every turn, before any of the work.
 */
export const CLIENT_TOOLS_TOKENS = 25_000;

/** One served tool, weighed. */
export interface ToolWeight {
  readonly pack: string;
  readonly verb: string;
  readonly read: boolean;
  /** The characters of its name, description and input schema as JSON: what a client gives the model of it. */
  readonly chars: number;
}

/** A tool's weight from the three fields a client gives the model (its output schema is the client's, not the model's). */
export function weighTool(pack: string, verb: string, read: boolean, tool: { name: string; description: string; inputSchema: unknown }): ToolWeight {
  return { pack, verb, read, chars: JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }).length };
}

/**
 * The tools of a pack hcp init makes, weighed as hcp serve --mcp makes them (without --allow-write): every verb its
 * policy.json does not deny.
 */
export function packToolWeights(surface: { id: string; name: string; verbs: Readonly<Record<string, SurfaceVerb>> }, policy: PolicyDocument): ToolWeight[] {
  return Object.entries(surface.verbs).flatMap(([verb, v]) => {
    const effective = effectivePolicy({ surface, policy }, verb);
    if (effective.policy === "deny") return [];
    const tool = {
      name: toolName(surface.id, verb),
      description: toolDescription(v.description, surface.name, verb, effective, false),
      inputSchema: withControls(v.args ?? { type: "object" }, effective),
    };
    return [weighTool(surface.id, verb, effective.policy === "read", tool)];
  });
}

/** How hcp init names the flags that serve a part of a pack's tools. */
export const SERVE_FLAGS = "hcp serve --mcp's --tools, --exclude or --read-only";

/** hcp init's note of the tools of the pack it makes (heavyTools), none when they are few and light. */
export function packToolsNote(surface: Parameters<typeof packToolWeights>[0], policy: PolicyDocument): string[] {
  return heavyTools(packToolWeights(surface, policy), SERVE_FLAGS);
}

/** Tokens, roughly: 4 characters each (JSON schemas take more, so this never overstates them), to the hundred past one. */
function tokens(tools: readonly ToolWeight[]): number {
  const n = Math.round(tools.reduce((sum, t) => sum + t.chars, 0) / 4);
  return n < 100 ? n : Math.round(n / 100) * 100;
}

const figure = (n: number) => n.toLocaleString("en-US");

/**
 * What the person or operator is told of tools more than many clients take at once (CLIENT_TOOLS_MAX), or heavier
 * than a client takes without complaint (CLIENT_TOOLS_TOKENS): serve a part of them with `flags`, with what
 * --read-only would serve and a --tools glob for the largest group of verbs by first word (`github_repos-*`) as
 * examples. None for fewer and lighter.
 */
export function heavyTools(tools: readonly ToolWeight[], flags: string): string[] {
  const many = tools.length > CLIENT_TOOLS_MAX;
  const weight = tokens(tools);
  const heavy = weight > CLIENT_TOOLS_TOKENS;
  if (!many && !heavy) return [];
  const why = [
    ...(many ? [`are more than many clients take at once (${CLIENT_TOOLS_MAX} is a common limit)`] : []),
    ...(heavy ? [`come to about ${figure(weight)} tokens (their names, descriptions and input schemas), which a client puts before the agent on every turn (Claude Code warns past ${figure(CLIENT_TOOLS_TOKENS)})`] : []),
  ];
  const reads = tools.filter((t) => t.read);
  const examples = [
    ...(reads.length > 0 && reads.length < tools.length ? [`--read-only serves its ${reads.length} reads, about ${figure(tokens(reads))} tokens`] : []),
    ...largestGroup(tools),
  ];
  return [`${tools.length} MCP tools ${why.join(" and ")}: serve a part of them with ${flags}${examples.length > 0 ? ` (${examples.join("; ")})` : ""}`];
}

/** `--tools '<glob>' serves its N <word> verbs` for the largest group of verbs by first word; none when no verb has one. */
function largestGroup(tools: readonly ToolWeight[]): string[] {
  const groups = new Map<string, { word: string; count: number }>();
  for (const { pack, verb } of tools) {
    const start = /^[a-z0-9]+[-._]/.exec(verb)?.[0];
    if (start === undefined) continue;
    // The glob is the group's start as tool names have it (`repos.` as `github_repos_`): a glob matches the name before the cut.
    const glob = `${uncutToolName(pack, start)}*`;
    const group = groups.get(glob) ?? { word: start.slice(0, -1), count: 0 };
    group.count++;
    groups.set(glob, group);
  }
  const [glob, best] = [...groups].reduce<[string, { word: string; count: number }]>((a, b) => (b[1].count > a[1].count ? b : a), ["", { word: "", count: 0 }]);
  return best.count > 0 ? [`--tools '${glob}' serves its ${best.count} ${best.word} verbs`] : [];
}
