// An argument of a verb in words, as HARNESS.md lists it and `hcp describe` and the server's tools read it: its type,
// the values it may not take, the line hcp init writes. Apart from harness-render.ts, which loads the YAML library for
// the frontmatter: a server reads these at start-up and never writes a HARNESS.md. Pure.

import { isObject } from "./issues.js";
import { marksSecret } from "./secret-arguments.js";

/** What HARNESS.md and `hcp describe` say of an argument whose value is a secret (§12). */
export const SECRET_NOTE = "secret: masked in every output";

/** A JSON Schema `type` in words, here and by `hcp describe`: `string`, `string|null`, `any` when it names none. */
export const typeName = (t: unknown): string => (Array.isArray(t) ? t.join("|") : typeof t === "string" ? t : "any");

/**
 * A schema's `type`; without one, the types its `oneOf` or `anyOf` alternatives each name (GitHub's `cwes`, a string or
 * an array: `["string", "array"]`), so that it is not called `any`. Undefined when they do not all name one.
 */
export function schemaType(schema: unknown): unknown {
  if (!isObject(schema)) return undefined;
  if (schema["type"] !== undefined) return schema["type"];
  const alternatives = Array.isArray(schema["oneOf"]) ? schema["oneOf"] : Array.isArray(schema["anyOf"]) ? schema["anyOf"] : [];
  const types = alternatives.map((a) => (isObject(a) ? a["type"] : undefined)).flat();
  return types.length > 0 && types.every((t) => typeof t === "string") ? [...new Set(types)] : undefined;
}

/** `array of strings`, `array of string|null`, `array of values` (items of any type). */
function arrayOf(items: unknown): string {
  const t = typeName(schemaType(items));
  return `array of ${t === "any" ? "values" : t.includes("|") ? t : `${t}s`}`;
}

/** The values a `not` refuses by name (`not: {enum}`). */
function refusedEnum(not: unknown): unknown[] | undefined {
  return isObject(not) && Array.isArray(not["enum"]) ? not["enum"] : undefined;
}

/**
 * The values an argument may not take: a generated operand may not name a subcommand (`not: {enum}`), an array's
 * first item (`prefixItems[0]`) alike (`first`). Undefined when the schema says none.
 */
export function refusedValues(schema: Record<string, unknown>): { values: unknown[]; first: boolean } | undefined {
  const first = Array.isArray(schema["prefixItems"]) && isObject(schema["prefixItems"][0]) ? schema["prefixItems"][0] : undefined;
  const own = refusedEnum(schema["not"]);
  const ofFirst = refusedEnum(first?.["not"]);
  return own !== undefined ? { values: own, first: false } : ofFirst !== undefined ? { values: ofFirst, first: true } : undefined;
}

/**
 * The values a pattern refuses, in the words its `not` gives them (a read's `--output` choices that open a file:
 * `go-template-file, … (each makes the command open a file, which a read may not)`); undefined when it says none.
 */
export function refusedSaid(schema: Record<string, unknown>): string | undefined {
  const not = schema["not"];
  return isObject(not) && refusedEnum(not) === undefined && typeof not["description"] === "string" ? not["description"] : undefined;
}

/**
 * `name` (type, required, one of …, default …): description, as an item of a Markdown list indented by `indent`. A
 * description of several lines (an API's example on a line of its own) stays in its item: each further line is
 * indented as the item's text, so that it never reads as text of its own, nor as a heading of HARNESS.md.
 */
export function argumentLine(name: string, schema: unknown, required: boolean, indent = ""): string {
  const s = isObject(schema) ? schema : {};
  const items = isObject(s["items"]) ? s["items"] : undefined;
  const type = s["type"] === "array" ? arrayOf(items) : typeName(schemaType(s));
  const choices = Array.isArray(s["enum"]) ? s["enum"] : Array.isArray(items?.["enum"]) ? (items["enum"] as unknown[]) : undefined;
  const parts = [type, required ? "required" : "optional"];
  if (choices !== undefined) parts.push(`one of ${choices.map((c) => JSON.stringify(c)).join(", ")}`);
  const refused = refusedValues(s);
  if (refused !== undefined) parts.push(`${refused.first ? "first " : ""}not ${refused.values.map((c) => JSON.stringify(c)).join(", ")}`);
  const said = refusedSaid(s);
  if (said !== undefined) parts.push(`not ${said}`);
  if (s["default"] !== undefined) parts.push(`default ${JSON.stringify(s["default"])}`);
  if (marksSecret(s)) parts.push(SECRET_NOTE);
  const lines = typeof s["description"] === "string" && s["description"] !== "" ? s["description"].split(/\r?\n/) : [];
  const description = lines.length === 0 ? "" : `: ${lines.map((l, i) => (i === 0 || l === "" ? l : `${indent}    ${l}`)).join("\n")}`;
  return `${indent}  - \`${name}\` (${parts.join(", ")})${description}`;
}

/** How deep the fields of object arguments (an API's request body) are listed, here and by `hcp describe`. */
export const FIELD_DEPTH = 3;
