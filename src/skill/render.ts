// renderSkill: the repository-scoped agent files (.agents/README.md and SKILL.md) rendered from an agent metadata document through an allowlist.

import { stringify } from "yaml";
import type { AgentMetaDocument } from "../agentmeta/types.js";
import { checkSkillName } from "./name.js";
import { capabilities, commandRows, type Capabilities, type CommandRow } from "./policy.js";
import { codeSpan, normalizeAgentFile, plainLine } from "./text.js";

export interface RenderSkillOptions {
  /** Add each command's short text, reduced to one line of plain text, as a Summary column. Default false. */
  includeShort?: boolean;
}

export interface AgentFile {
  /** Repository-relative path with forward slashes. */
  path: string;
  content: string;
}

/**
 * Renders `.agents/README.md` then `.agents/skills/<tool>/SKILL.md`. Only the
 * tool name, command paths and use operands (as generated templates) and fixed
 * prose reach the files, unless includeShort opts in to short texts. Throws
 * SkillNameError for a tool name outside the Agent Skills rules and
 * SkillRenderError for command text that cannot be rendered safely.
 */
export function renderSkill(doc: AgentMetaDocument, options: RenderSkillOptions = {}): AgentFile[] {
  const tool = doc.tool_name;
  checkSkillName(tool);
  const skillPath = `.agents/skills/${tool}/SKILL.md`;
  const caps = capabilities(doc);
  const rows = commandRows(doc, caps);
  return [
    { path: ".agents/README.md", content: normalizeAgentFile(readme(tool, skillPath)) },
    { path: skillPath, content: normalizeAgentFile(skill(tool, caps, rows, options.includeShort === true)) },
  ];
}

function readme(tool: string, skillPath: string): string {
  return `# Repository Agent Files

rungrad generated repository-scoped agent files for \`${tool}\`.

- Skill: \`${skillPath}\`

Agents that scan repository skills can discover the skill from the repository root or from a child working directory inside this repository.

Product maintainers should review the generated skill, keep command guidance in sync when CLI behavior changes, and replace generic credential guidance with links to external product authentication documentation.

Provider-specific packaging and runtime files are intentionally absent:

- \`.codex-plugin/\`
- \`.mcp.json\`
- Claude plugin files
- hosted-tool descriptors
- remote marketplace metadata

MCP adapters, direct API clients, OAuth, permission policy, hosted integrations, and provider publication remain product-owned work.
`;
}

function skill(tool: string, caps: Capabilities, rows: CommandRow[], includeShort: boolean): string {
  const modes = (help: string, json: string, noPrompt: string, dryRun: string): string =>
    joinOr([help, caps.json ? json : "", caps.noPrompt ? noPrompt : "", caps.dryRun ? dryRun : ""]);
  const frontmatter = stringify(
    {
      name: tool,
      description: `Use when operating the ${tool} CLI through ${modes("help", "stable JSON", "non-interactive mode", "dry-run previews")}; do not use for direct API or MCP work.`,
    },
    { lineWidth: 0 },
  );
  return `---
${frontmatter}---

# ${tool} CLI

## When To Use This Skill

Use this skill when operating the \`${tool}\` CLI from this repository through ${modes("command help", "stable JSON", "non-interactive automation", "dry-run previews")}.

## Discover The CLI

Inspect \`${tool} --help\` and the rungrad manifest with \`${tool} __rungrad_manifest\` before planning unfamiliar commands. Use command help for a specific command before adding unfamiliar flags or arguments.

## Safe Command Policy

${safeCommandPolicy(tool, caps).join("\n\n")}

## Generated Command Reference

<!-- rungrad:command-reference:start -->
${commandTable(rows, includeShort)}<!-- rungrad:command-reference:end -->

## Credentials

If credentials are missing, stop and direct the user to the product's external authentication documentation. Never request, echo, store, or log a credential in chat or generated files.

## Boundaries

This skill supports operating the local CLI only. Direct API calls and MCP activity are unsupported by this skill.

It does not include plugin manifests, MCP configuration, hosted-tool descriptors, marketplace packaging, OAuth wiring, permission policy, or product API client instructions.
`;
}

/** The policy paragraphs; sentences about a flag appear only when its canonical form exists. */
function safeCommandPolicy(tool: string, caps: Capabilities): string[] {
  const machine = [
    caps.json
      ? "Prefer `--json` for read commands and parseable command results."
      : "No canonical `--json` flag is declared; do not assume machine-readable output.",
    caps.noPrompt ? "Use `--no-prompt` in automation." : "No canonical `--no-prompt` flag is declared; expect interactive prompts.",
  ];
  const mutation = [
    caps.dryRun
      ? "Run `--dry-run` before any mutating command that supports it."
      : "No canonical `--dry-run` flag is declared; require explicit user confirmation before any mutating command.",
  ];
  if (caps.update) mutation.push(`Treat \`${tool} update --check\` as the read-only update check generated by the scaffold.`);
  const destructive = ["Require explicit user intent before destructive commands."];
  if (caps.confirm) destructive.push("Use `--confirm` only for generated commands that document that confirmation pattern.");
  return [machine, mutation, destructive, ["Avoid printing, logging, or requesting secrets in chat."]].map((p) => p.join(" "));
}

function commandTable(rows: CommandRow[], includeShort: boolean): string {
  const header = includeShort ? "| Command | Summary | Policy |\n| --- | --- | --- |\n" : "| Command | Policy |\n| --- | --- |\n";
  return (
    header +
    rows
      .map((r) => {
        const cells = [codeSpan(r.command, "command"), ...(includeShort ? [plainLine(r.short)] : []), r.policy];
        return `| ${cells.join(" | ")} |\n`;
      })
      .join("")
  );
}

/** "a", "a or b", "a, b, or c": the non-empty items as an English list. */
function joinOr(items: string[]): string {
  const xs = items.filter((x) => x !== "");
  if (xs.length <= 2) return xs.join(" or ");
  return `${xs.slice(0, -1).join(", ")}, or ${xs[xs.length - 1]!}`;
}
