// `hcp describe PACK [VERB]` (§8): each verb's arguments (name, type, required, description, enum, values refused, default),
// policy, approval and argv template, as a model and as text. Pure.

import { isAbsolute } from "node:path";
import { toolName } from "../pack/fields.js";
import { policyMarks } from "../pack/harness-policy.js";
import { FIELD_DEPTH, SECRET_NOTE, refusedSaid, refusedValues, schemaType, typeName } from "../pack/argument-line.js";
import { isObject } from "../pack/issues.js";
import { marksSecret } from "../pack/secret-arguments.js";
import { argsSchemaOf } from "../runtime/execute.js";
import { escapeForPerson } from "../runtime/approval/show.js";
import { RuntimeError } from "../runtime/errors.js";
import { workingFolder } from "../runtime/command.js";
import { operationTemplate } from "../runtime/openapi/verb.js";
import { verbsHint } from "../runtime/verb-names.js";
import { runsPrograms, verbsOf, type ServedPack } from "./packs.js";
import { shellWord } from "../shell-word.js";

export interface ArgumentDescription {
  name: string;
  /** The JSON Schema type: `string`, `integer`, `array of string`, `string|null`…; `any` when the schema names none. */
  type: string;
  required: boolean;
  description?: string;
  enum?: unknown[];
  /** Values it may not take (a subcommand's name, which the program would run instead: `not: {enum}`). */
  not?: unknown[];
  /** Values an array argument's first item may not take (`prefixItems[0].not.enum`). */
  first_not?: unknown[];
  /** Values a pattern refuses, in words (`not: {pattern, description}`: a read's choices that open a file). */
  not_said?: string;
  default?: unknown;
  /** Its value is a secret (the schema's writeOnly or password format): masked in every output (§12). */
  secret?: true;
  /** An object argument's properties (an array's items' when they are objects), to FIELD_DEPTH levels. */
  fields?: ArgumentDescription[];
}

export interface VerbDescription {
  verb: string;
  tool: string;
  description: string | null;
  policy: "read" | "write" | "deny";
  /** Who must agree before it runs: a person (`hcp approve`), the caller restating a dry run's plan_id, or nobody. */
  approval: "person" | "plan" | "none";
  /** The argv template (`cli`); an openapi verb's method and path template; null when the verb has none (argv_template). */
  argv_template: string[] | null;
  arguments: ArgumentDescription[];
}

/** The properties of an object schema as arguments, each with its own fields below `depth`. */
function fieldsOf(schema: unknown, depth: number): ArgumentDescription[] {
  const s = isObject(schema) ? schema : {};
  const properties = isObject(s["properties"]) ? s["properties"] : {};
  const required = Array.isArray(s["required"]) ? s["required"] : [];
  return Object.keys(properties).map((n) => argumentOf(n, properties[n], required.includes(n), depth));
}

function argumentOf(name: string, schema: unknown, required: boolean, depth: number): ArgumentDescription {
  const s = isObject(schema) ? schema : {};
  const items = isObject(s["items"]) ? s["items"] : undefined;
  const out: ArgumentDescription = { name, type: s["type"] === "array" && items !== undefined ? `array of ${typeName(schemaType(items))}` : typeName(schemaType(s)), required };
  if (typeof s["description"] === "string" && s["description"] !== "") out.description = s["description"];
  const choices = Array.isArray(s["enum"]) ? s["enum"] : Array.isArray(items?.["enum"]) ? (items["enum"] as unknown[]) : undefined;
  if (choices !== undefined) out.enum = choices;
  const refused = refusedValues(s);
  if (refused !== undefined) out[refused.first ? "first_not" : "not"] = refused.values;
  const said = refusedSaid(s);
  if (said !== undefined) out.not_said = said;
  if (s["default"] !== undefined) out.default = s["default"];
  if (marksSecret(s)) out.secret = true;
  const fields = depth < FIELD_DEPTH ? fieldsOf(items ?? s, depth + 1) : [];
  if (fields.length > 0) out.fields = fields;
  return out;
}

/** The verbs of a pack (or the one named), every policy shown, denied ones included. */
export function describePack(pack: ServedPack, verb?: string): { pack: string; name: string; verbs: VerbDescription[] } {
  const entries = verbsOf(pack).filter((e) => verb === undefined || e.key === verb);
  if (verb !== undefined && entries.length === 0) {
    throw new RuntimeError("unknown_verb", `pack ${JSON.stringify(pack.surface.id)} has no verb ${JSON.stringify(verb)} (${verbsHint(Object.keys(pack.surface.verbs), verb, pack.root)})`);
  }
  const verbs = entries.map(({ key, verb: v, policy }) => {
    const schema = argsSchemaOf(pack, key);
    const properties = isObject(schema["properties"]) ? schema["properties"] : {};
    const required = Array.isArray(schema["required"]) ? schema["required"] : [];
    return {
      verb: key,
      tool: toolName(pack.surface.id, key),
      description: v.description ?? null,
      policy: policy.policy,
      approval: policy.confirm === false ? ("none" as const) : policy.confirm,
      argv_template: v.cli ?? (pack.surface.kind === "openapi" ? operationTemplate(pack, key) : null),
      arguments: Object.keys(properties).map((n) => argumentOf(n, properties[n], required.includes(n), 1)),
    };
  });
  return { pack: pack.surface.id, name: pack.surface.name ?? pack.surface.id, verbs };
}

/** An argument's line, then its fields' lines, each level two spaces further in. */
function argumentLines(a: ArgumentDescription, indent = "    "): string[] {
  const parts = [a.type, a.required ? "required" : "optional"];
  if (a.enum !== undefined) parts.push(`one of ${a.enum.map((e) => JSON.stringify(e)).join(", ")}`);
  if (a.not !== undefined) parts.push(`not ${a.not.map((e) => JSON.stringify(e)).join(", ")}`);
  if (a.first_not !== undefined) parts.push(`first not ${a.first_not.map((e) => JSON.stringify(e)).join(", ")}`);
  if (a.not_said !== undefined) parts.push(`not ${a.not_said}`);
  if (a.default !== undefined) parts.push(`default ${JSON.stringify(a.default)}`);
  if (a.secret === true) parts.push(SECRET_NOTE);
  const line = `${indent}${a.name} (${parts.join(", ")})${a.description === undefined ? "" : `: ${oneLine(a.description)}`}`;
  return [line, ...(a.fields ?? []).flatMap((f) => argumentLines(f, `${indent}  `))];
}

/**
 * What a CLI pack runs and where, for the text only. The program of a wrap pack: the first word of a `runs:` line is the
 * tool's name (cliBin), and a person deciding what may run should see which program stands in its place (wrap.bin:
 * often a path, such as a scaffolded CLI's dist/src/main.js); a composite pack's `runs:` lines say it themselves. And
 * the folder its verbs run in, which decides what many CLIs act on (git's repository). None for an API's pack.
 */
export function programLines(pack: ServedPack): string[] {
  if (!runsPrograms(pack)) return [];
  const lines: string[] = [];
  const bin = pack.surface.kind === "wrap" ? pack.surface.wrap?.bin : undefined;
  if (bin !== undefined) {
    const where = isAbsolute(bin) ? "" : /[/\\]/.test(bin) ? ", relative to the pack folder" : ", looked up on PATH when a verb runs";
    lines.push(`program: ${bin} (wrap.bin${where}), run in place of the first word of each runs: line`);
  }
  lines.push(pack.policy?.cwd === undefined ? "runs in: the folder hcp is started in, or --cwd of hcp serve and hcp exec (policy.json sets no cwd)" : `runs in: ${workingFolder(pack)} (policy.json cwd)`);
  return lines;
}

/** The description as text: `header` lines below the pack's name, `footer` lines at the end. */
export function renderDescription(d: ReturnType<typeof describePack>, header: readonly string[] = [], footer: readonly string[] = []): string {
  const lines = [`${d.name} (pack ${d.pack})`, ...header];
  for (const v of d.verbs) {
    const marks = policyMarks(v.policy, v.approval === "none" ? false : v.approval);
    lines.push("", `${v.verb} (${marks.join(", ")}); MCP tool ${v.tool}`);
    if (v.description !== null && v.description !== "") lines.push(`  ${oneLine(v.description)}`);
    if (v.argv_template !== null) lines.push(`  runs: ${v.argv_template.join(" ")}`);
    lines.push(v.arguments.length === 0 ? "  arguments: none" : "  arguments:", ...v.arguments.flatMap((a) => argumentLines(a)));
  }
  lines.push(...footer);
  // Each line is one line: a line break in a description, a program's path or an argv token cannot draw a verb or a
  // `runs:` line of its own for the person deciding what may run; it shows as \u{000A}, as other controls do.
  return lines.map(escapeForPerson).join("\n") + "\n";
}

/**
 * A description's line breaks as spaces: prose to read, joined into the one line it stands on (an API's descriptions
 * are paragraphs). A break anywhere else (a path, an argv token) is exact, and shows as \u{000A}.
 */
const oneLine = (text: string): string => text.replace(/[ \t]*(?:\r\n|[\r\n\u2028\u2029])+[ \t]*/g, " ").trim();

/** Given as --arg NAME=VALUE (a string, or a string or null), not as NAME:=JSON. */
const isString = (a: ArgumentDescription): boolean => a.type.startsWith("string");

/**
 * How `hcp run` takes a verb (its help, after what hcp describe shows): each required argument as an --arg (a string
 * as NAME=VALUE, any other type as NAME:=JSON), then the optional ones, in the forms their types take.
 */
export function runUsage(packPath: string, v: VerbDescription): string[] {
  const words = ["hcp run", shellWord(packPath), shellWord(v.verb)];
  for (const a of v.arguments) if (a.required) words.push(`--arg ${shellWord(a.name)}${isString(a) ? "=VALUE" : ":=JSON"}`);
  const optional = v.arguments.filter((a) => !a.required);
  if (optional.length > 0) words.push(optional.every(isString) ? "[--arg NAME=VALUE]…" : "[--arg NAME=VALUE | --arg NAME:=JSON]…");
  return ["", "Usage:", `  ${words.join(" ")} [flags]`, "", "hcp run --help shows hcp run's own flags (--allow-write, --dry-run, --confirm, --json…)."];
}
