// HARNESS.md for a generated pack (hcp.md §5): written for an agent that reaches the pack through hcp. Pure.

import { stringify } from "yaml";
import { argumentLine, FIELD_DEPTH } from "./argument-line.js";
import { toolName } from "./fields.js";
import { CREDENTIALS_MARK, confirmMark, policyMarks } from "./harness-policy.js";
import { SKILL_WHOLE_MAX_BYTES } from "./harness-sections.js";
import { SKILL_NAME } from "./harness.js";
import { cutWhole, sentence } from "./sentence.js";
import { isObject } from "./issues.js";
import type { JsonSchema, PolicyDocument, SurfaceVerb } from "./types.js";

export interface HarnessInput {
  surface: { id: string; name: string; verbs: Record<string, SurfaceVerb> };
  policy: PolicyDocument;
  /** What the program is, in a few words (the CLI's own short description); may be empty. */
  summary: string;
  /** Set when some verbs need a credential: the binding's family, the variables (an API's security schemes), and those verbs. */
  /** `alternatives`: an API's schemes of which each verb takes any one (Asana's token or OAuth): one stored is enough. */
  credentials?: { family: string; variables: readonly string[]; verbs: readonly string[]; alternatives?: boolean };
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

/**
 * The most fields of object arguments (a request body's, at any depth) a verb's section lists, the shallowest first;
 * past them it says how many more its tool's inputSchema has. DocuSign's tab verbs have thousands: 650 KB each.
 */
const FIELDS_LISTED_MAX = 50;
/** A field's description is its first paragraph, cut at this many characters; an argument's own is whole. */
const FIELD_DESCRIPTION_MAX = 300;

const propertiesOf = (schema: unknown): Record<string, unknown> => (isObject(schema) && isObject(schema["properties"]) ? schema["properties"] : {});
const requiredOf = (schema: unknown): unknown[] => (isObject(schema) && Array.isArray(schema["required"]) ? schema["required"] : []);
/** What holds a property's own fields: its items' schema for an array of objects, else itself. */
const fieldsHolder = (p: unknown): unknown => (isObject(p) && isObject(p["items"]) ? p["items"] : p);
const fieldPath = (parent: string, name: string) => (parent === "" ? name : `${parent}\0${name}`);

/** How many properties an object schema has at `depth` and below, to FIELD_DEPTH. */
function fieldCount(schema: unknown, depth: number): number {
  const properties = propertiesOf(schema);
  return Object.keys(properties).reduce((n, k) => n + 1 + (depth < FIELD_DEPTH ? fieldCount(fieldsHolder(properties[k]), depth + 1) : 0), 0);
}

/** The paths of the fields a section lists: level by level, the arguments' own fields first, at most FIELDS_LISTED_MAX. */
function listedFields(args: unknown): Set<string> {
  const listed = new Set<string>();
  let level = Object.entries(propertiesOf(args)).map(([name, p]) => ({ path: name, holder: fieldsHolder(p) }));
  for (let depth = 2; depth <= FIELD_DEPTH; depth++) {
    const next: typeof level = [];
    for (const { path, holder } of level) {
      for (const [name, p] of Object.entries(propertiesOf(holder))) {
        if (listed.size === FIELDS_LISTED_MAX) return listed;
        listed.add(fieldPath(path, name));
        next.push({ path: fieldPath(path, name), holder: fieldsHolder(p) });
      }
    }
    level = next;
  }
  return listed;
}

/** A field's description as listed: its first paragraph, at most FIELD_DESCRIPTION_MAX characters (never half of one). */
function shortDescription(p: unknown): unknown {
  if (!isObject(p) || typeof p["description"] !== "string") return p;
  const first = p["description"].trim().split(/\r?\n\s*\n/)[0]!;
  const description = first.length <= FIELD_DESCRIPTION_MAX ? first : `${cutWhole(first, FIELD_DESCRIPTION_MAX)}…`;
  return { ...p, description };
}

/**
 * One line per property of an object schema, each followed by its own fields (an array's items' fields too), indented:
 * every argument (depth 1) whole, and the fields `listed` names.
 */
function propertyLines(schema: unknown, indent: string, depth: number, path: string, listed: ReadonlySet<string>): string[] {
  const properties = propertiesOf(schema);
  const required = requiredOf(schema);
  return Object.keys(properties).flatMap((n) => {
    const at = fieldPath(path, n);
    if (depth > 1 && !listed.has(at)) return [];
    const p = properties[n];
    const fields = depth < FIELD_DEPTH ? propertyLines(fieldsHolder(p), `${indent}  `, depth + 1, at, listed) : [];
    return [argumentLine(n, depth > 1 ? shortDescription(p) : p, required.includes(n), indent), ...fields];
  });
}

function argumentLines(args: JsonSchema | undefined): string[] {
  const listed = listedFields(args);
  const lines = propertyLines(args, "", 1, "", listed);
  if (lines.length === 0) return ["- Arguments: none."];
  const unlisted = fieldCount(args, 1) - Object.keys(propertiesOf(args)).length - listed.size;
  const more = unlisted === 0 ? [] : [`- Fields not listed here: ${unlisted} more (the tool's inputSchema has them all; so does \`hcp describe\`).`];
  return ["- Arguments:", ...lines, ...more];
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
    `Each verb below is one tool: over MCP it is named \`${id}_<verb>\` (dots and other characters as \`_\`, as listed); with the hcp CLI, \`hcp run <pack> <verb> --arg name=value\` (\`hcp run <pack> <verb> --help\` lists its arguments); over \`hcp exec\`, \`{"pack": "${id}", "verb": "<verb>", "args": {...}}\`.`,
    "`hcp run` runs only a pack the person trusted: if a call is refused with code `pack_untrusted` (exit code 4), ask the person to review the pack and trust it with `hcp trust <pack folder>` in their terminal; you cannot trust it yourself.",
    api
      ? "Pass arguments by the names listed (`body` is the JSON request body); hcp builds the request itself, so a value never changes the URL's path or adds a header."
      : "Pass arguments by the names listed; hcp builds the command line itself, so a value is never read as a flag or by a shell.",
    api
      ? "A tool's result is the response body, then the headers by which the API pages (`[link: …]`, with the next page's URL, and `[x-total-count: …]`) when it sends them; when the status is not 2xx, the method, URL and status come first."
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
        ? `Verbs marked **needs credentials** call the API as the person, with ${one ? `the ${listed} credential` : credentials.alternatives === true ? `one of the credentials of the document's security schemes ${listed} (each verb takes any one its operation names)` : `the credentials of the document's security schemes ${listed} (each verb uses those its operation names)`}; hcp adds ${one ? "it" : "them"} to the request itself, and ${one ? "it is" : "they are"} never shown to you. The person stores ${one ? "it" : credentials.alternatives === true ? "one of them" : "each"} once for hcp:`
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
  const frontmatter = stringify({ name: skillName(id), description: description.slice(0, 1024) }, { lineWidth: 0 });
  const text = (verbs: string[]) => `---\n${frontmatter}---\n\n${[...lines, "", "## Verbs", "", ...verbs].join("\n").replace(/\n+$/, "")}\n`;
  const sections = (full: boolean) =>
    keys.flatMap((key) => {
      const p = policyOf(policy, key);
      const marks = policyMarks(p.level, p.person ? "person" : p.plan ? "plan" : false);
      if (credentials?.verbs.includes(key)) marks.push(CREDENTIALS_MARK);
      return verbSection(id, key, surface.verbs[key]!, marks, full);
    });
  const whole = text(sections(true));
  if (Buffer.byteLength(whole) <= SKILL_WHOLE_MAX_BYTES) return whole;
  return text([
    `The ${keys.length} verbs are too many to describe in full here, so each is listed with the names of its arguments only. Each argument's type, description and allowed values, and the ${api ? "request a verb sends" : "command a verb runs"}, are in its tool's input schema over MCP and in \`hcp describe <pack> <verb>\`.`,
    "",
    ...sections(false),
  ]);
}

/**
 * A verb's section: its heading (the marks of its policy), description and tool; then, `full`, each argument in a line
 * of its own and what it runs, else the arguments' names alone (an agent gets the rest from the tool or hcp describe).
 */
function verbSection(id: string, key: string, verb: SurfaceVerb, marks: readonly string[], full: boolean): string[] {
  const lines = [`### \`${key}\` (${marks.join(", ")})`, ""];
  if (verb.description !== undefined && verb.description.trim() !== "") lines.push(sentence(verb.description), "");
  lines.push(`- Tool: \`${toolName(id, key)}\``);
  if (!full) return [...lines, `- Arguments: ${argumentNames(verb.args)}`, ""];
  lines.push(...argumentLines(verb.args));
  if (verb.cli !== undefined) lines.push(`- Runs: \`${verb.cli.join(" ")}\``);
  return [...lines, ""];
}

/** `a` (required), `b`, `c`. or none. */
function argumentNames(args: JsonSchema | undefined): string {
  const names = Object.keys(propertiesOf(args));
  if (names.length === 0) return "none.";
  const required = requiredOf(args);
  return `${names.map((n) => `\`${n}\`${required.includes(n) ? " (required)" : ""}`).join(", ")}.`;
}
