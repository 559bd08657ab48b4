// HARNESS.md for a generated pack (hcp.md §5): written for an agent that reaches the pack through hcp. Pure.

import { stringify } from "yaml";
import { argumentLine, FIELD_DEPTH } from "./argument-line.js";
import { toolName } from "./fields.js";
import { CREDENTIALS_MARK, confirmMark, policyMarks } from "./harness-policy.js";
import { SKILL_NAME } from "./harness.js";
import { sentence } from "./sentence.js";
import { isObject } from "./issues.js";
import type { JsonSchema, PolicyDocument, SurfaceVerb } from "./types.js";

export interface HarnessInput {
  surface: { id: string; name: string; verbs: Record<string, SurfaceVerb> };
  policy: PolicyDocument;
  /** What the program is, in a few words (the CLI's own short description); may be empty. */
  summary: string;
  /** Set when some verbs need a credential: the binding's family, the variables (an API's security schemes), and those verbs. */
  credentials?: { family: string; variables: readonly string[]; verbs: readonly string[] };
  /** An openapi pack: the verbs are HTTP requests and the credential is a security scheme's value (§9, §11). */
  api?: boolean;
}

/** The verb's policy level and whether a person must approve it, as policy.json says. */
function policyOf(policy: PolicyDocument, key: string): { level: string; person: boolean; plan: boolean } {
  const raw = policy.verbs !== undefined && Object.hasOwn(policy.verbs, key) ? policy.verbs[key] : undefined;
  if (raw === undefined) return { level: policy.default ?? "write", person: false, plan: false };
  if (typeof raw === "string") return { level: raw, person: false, plan: false };
  const confirm = raw.confirm as unknown;
  return { level: raw.policy, person: confirm === true || confirm === "person", plan: confirm === "plan" };
}

/** One line per property of an object schema, each followed by its own fields (an array's items' fields too), indented. */
function propertyLines(schema: unknown, indent: string, depth: number): string[] {
  const s = isObject(schema) ? schema : {};
  const properties = isObject(s["properties"]) ? s["properties"] : {};
  const required = Array.isArray(s["required"]) ? s["required"] : [];
  return Object.keys(properties).flatMap((n) => {
    const p = properties[n];
    const items = isObject(p) && isObject(p["items"]) ? p["items"] : undefined;
    const fields = depth < FIELD_DEPTH ? propertyLines(items ?? p, `${indent}  `, depth + 1) : [];
    return [argumentLine(n, p, required.includes(n), indent), ...fields];
  });
}

function argumentLines(args: JsonSchema | undefined): string[] {
  const lines = propertyLines(args, "", 1);
  return lines.length === 0 ? ["- Arguments: none."] : ["- Arguments:", ...lines];
}

/** An Agent Skills name from the pack id. */
function skillName(id: string): string {
  const n = id.replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 64).replace(/-+$/, "");
  return SKILL_NAME.test(n) ? n : "pack";
}

export function renderPackHarness(input: HarnessInput): string {
  const { surface, policy, credentials } = input;
  const id = surface.id;
  const summary = input.summary.trim();
  const api = input.api === true;
  // "the Notes API API" for a document titled "Notes API": the kind is said once.
  const apiName = /\bAPI$/i.test(surface.name) ? surface.name : `${surface.name} API`;
  const description = `Use the ${api ? apiName : `${surface.name} CLI`}${summary === "" ? "" : ` (${summary.replace(/[.]$/, "")})`} through its hcp pack "${id}": one tool per verb, run under a policy a person controls.`;
  const keys = Object.keys(surface.verbs).filter((k) => policyOf(policy, k).level !== "deny");
  const anyPerson = keys.some((k) => policyOf(policy, k).person);
  const anyPlan = keys.some((k) => policyOf(policy, k).plan);
  const lines = [
    `# ${surface.name} through hcp`,
    "",
    `${summary === "" ? "" : `${sentence(summary)} `}${api ? `This pack calls the ${apiName} over HTTP for you.` : `This pack runs the \`${surface.name}\` program for you.`}`,
    `Each verb below is one tool: over MCP it is named \`${id}_<verb>\` (dots and other characters as \`_\`, as listed); with the hcp CLI, \`hcp run <pack> <verb> --arg name=value\`; over \`hcp exec\`, \`{"pack": "${id}", "verb": "<verb>", "args": {...}}\`.`,
    "`hcp run` runs only a pack the person trusted: if a call is refused with code `pack_untrusted` (exit code 4), ask the person to review the pack and trust it with `hcp trust <pack folder>` in their terminal; you cannot trust it yourself.",
    api
      ? "Pass arguments by the names listed (`body` is the JSON request body); hcp builds the request itself, so a value never changes the URL's path or adds a header."
      : "Pass arguments by the names listed; hcp builds the command line itself, so a value is never read as a flag or by a shell.",
    api
      ? "A tool's result is the response body; when the status is not 2xx, the method, URL and status come first."
      : "A tool's result is the program's own output; when it fails, its stderr and exit code follow.",
    "",
    "## Policy and approval",
    "",
    "- `read` verbs run when you call them.",
    "- `write` verbs change something. They run only when the person running hcp allowed writes (`--allow-write`); otherwise they are refused, and you should tell the person what you wanted to do.",
    `- Any write verb can be previewed with \`dry_run: true\` (MCP, exec) or \`--dry-run\` (CLI): you get the exact ${api ? "request" : "command"} and a \`plan_id\`, and nothing runs.`,
  ];
  if (anyPerson) {
    lines.push(
      `- Verbs marked **${confirmMark("person")}** run only after a person approves the exact plan. Where your MCP client can ask the person, calling the tool asks them and runs on their yes. Otherwise: call it with \`dry_run: true\`, give the person the \`plan_id\` and ask them to run \`hcp approve <plan_id>\` in their terminal, then call the tool again with the same arguments and \`confirm: "<plan_id>"\`. You cannot give this approval yourself, and any change to the arguments needs a new one.`,
    );
  }
  if (anyPlan) {
    lines.push(`- Verbs marked **${confirmMark("plan")}** run when called again with \`confirm: "<plan_id>"\` from a dry run of the same arguments.`);
  }
  if (credentials !== undefined) {
    const names = credentials.variables;
    const one = names.length === 1;
    const listed = names.map((n) => `\`${n}\``).join(", ");
    const entries = names.map((n) => `"${n}": "..."`).join(", ");
    const set = names.map((n) => `hcp credentials set ${credentials.family} ${n}${api ? " --scheme" : ""}   # prompts for the value`);
    lines.push(
      "",
      "## Credentials",
      "",
      api
        ? `Verbs marked **needs credentials** call the API as the person, with ${one ? `the ${listed} credential` : `the credentials of the document's security schemes ${listed} (each verb uses those its operation names)`}; hcp adds ${one ? "it" : "them"} to the request itself, and ${one ? "it is" : "they are"} never shown to you. The person stores ${one ? "it" : "each"} once for hcp:`
        : `Verbs marked **needs credentials** call a service as the person: the program reads ${listed}. hcp gives the program a clean environment, so a variable exported in a shell does not reach it; the person stores ${one ? "it" : "each"} once for hcp:`,
      "",
      "```sh",
      ...set,
      "```",
      "",
      `or in \`~/.config/hcp/credentials.json\` (or the file \`HCP_CREDENTIALS\` names; mode 0600): \`{"${credentials.family}": {"${api ? "openapi" : "env"}": {${entries}}}}\`. ` +
        (api
          ? "If a verb fails with exit code 3 (HTTP 401 or 403, or the credential is missing: hcp looks for it on every call of this pack, marked or not), ask the person to provide it; never put it in an argument."
          : "If a verb fails saying the credential is missing (exit code 3: hcp looks for it on every call of this pack, marked or not), ask the person to provide it; never put it in an argument."),
    );
  }
  lines.push("", "## Verbs", "");
  for (const key of keys) {
    const verb = surface.verbs[key]!;
    const p = policyOf(policy, key);
    const marks = policyMarks(p.level, p.person ? "person" : p.plan ? "plan" : false);
    if (credentials?.verbs.includes(key)) marks.push(CREDENTIALS_MARK);
    lines.push(`### \`${key}\` (${marks.join(", ")})`, "");
    if (verb.description !== undefined && verb.description.trim() !== "") lines.push(sentence(verb.description), "");
    lines.push(`- Tool: \`${toolName(id, key)}\``, ...argumentLines(verb.args));
    if (verb.cli !== undefined) lines.push(`- Runs: \`${verb.cli.join(" ")}\``);
    lines.push("");
  }
  const frontmatter = stringify({ name: skillName(id), description: description.slice(0, 1024) }, { lineWidth: 0 });
  return `---\n${frontmatter}---\n\n${lines.join("\n").replace(/\n+$/, "")}\n`;
}
