// The arguments of an openapi verb as one JSON Schema (2020-12), derived from the operation (§6.7):
// one property per path, query, header and cookie parameter, and `body` for a request body; a parameter or a body's field
// whose name says it is a secret is writeOnly. Pure.

import { isObject } from "../../pack/issues.js";
import { setOwn } from "../../json/own.js";
import { SCHEMA, SCHEMAS, SCHEMA_MAPS } from "../../pack/schema-patterns.js";
import { alsoDescribing, namedSecret } from "../../pack/secret-arguments.js";
import type { Operation, Parameter } from "./operations.js";

/**
 * Header parameters that never become arguments, even where the document declares them: the three OpenAPI says
 * to ignore (the request's own machinery sets them); the credentials' (Cookie; Proxy-Authorization); the message's
 * framing and hop-by-hop headers (a Connection naming X-API-Key makes a proxy drop the credential); and those that
 * make a server route or treat the request as another one (Host, X-Original-URL, X-Forwarded-Host and its kin, the
 * standard Forwarded among them, method overrides).
 */
const IGNORED_HEADERS = new Set([
  "accept",
  "content-type",
  "authorization",
  "cookie",
  "proxy-authorization",
  "connection",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "content-length",
  "expect",
  "host",
  "x-forwarded-host",
  "forwarded",
  "x-forwarded-proto",
  "x-forwarded-prefix",
  "x-forwarded-port",
  "x-forwarded-server",
  "x-host",
  "x-original-url",
  "x-rewrite-url",
  "x-http-method-override",
  "x-http-method",
  "x-method-override",
]);
/** Values copied as they are: they are data, not schemas. */
const DATA_KEYS = new Set(["example", "examples", "default", "enum", "const"]);
const MAX_DEPTH = 32;

/** A parameter that becomes an argument, and the argument's name. */
export interface ArgumentParameter {
  readonly param: Parameter;
  readonly argument: string;
}

/**
 * The names an argument may have as a client gives it to a model: Anthropic's API refuses a whole tool list, every
 * turn of the session, when one input schema has a property outside this (Twilio's `DateSent<`, Microsoft Graph's
 * `$select`, SendGrid's `{field_name}`).
 */
export const ARGUMENT_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** How a character no argument name holds is written in one: the comparisons by word, the rest dropped or as `_`. */
const NAME_WORDS: Readonly<Record<string, string>> = { "<": "_lt", ">": "_gt", "=": "_eq", "!": "_not", "@": "_at", "+": "_plus", "*": "_all" };

/** A name no argument may have as one that may: its characters outside ARGUMENT_NAME written as words or `_`. */
function argumentNameOf(name: string): string {
  const written = name
    .replace(/[^A-Za-z0-9_.-]/g, (c) => NAME_WORDS[c] ?? (/[$'"{}()]/.test(c) ? "" : "_"))
    .replace(/_{2,}/g, "_")
    .replace(/^_+|_+$/g, "");
  return (written === "" ? "param" : written).slice(0, 56);
}

/**
 * The parameters that become arguments: path, query, header and cookie, first of a name wins; each named as it is,
 * or, where a client could not take its name, as argumentNameOf writes it (another name's taken: `_2`, `_3`…).
 */
export function argumentParameters(op: Operation): ArgumentParameter[] {
  const seen = new Set<string>();
  const taken = new Set(op.body === undefined ? [] : ["body"]);
  const out: ArgumentParameter[] = [];
  for (const p of op.parameters) {
    if (p.in === "header" && IGNORED_HEADERS.has(p.name.toLowerCase())) continue;
    if (seen.has(p.name) || (op.body !== undefined && p.name === "body")) continue;
    seen.add(p.name);
    const kept = ARGUMENT_NAME.test(p.name);
    out.push({ param: p, argument: kept ? p.name : "" });
    if (kept) taken.add(p.name);
  }
  // Renamed after every name kept as it is is known: a kept name never yields to a renamed one.
  return out.map((a) => {
    if (a.argument !== "") return a;
    const base = argumentNameOf(a.param.name);
    let argument = base;
    for (let n = 2; taken.has(argument); n++) argument = `${base}_${n}`;
    taken.add(argument);
    return { ...a, argument };
  });
}

/**
 * The most schema objects a copy holds. A document's `$ref`s form a graph whose copy as a tree can grow exponentially:
 * a 5 KB document of 40 schemas each naming the next twice copies to 2^40 objects, and Microsoft Graph's and
 * DocuSign's largest bodies copy to more than a million. GitHub's largest is 343.
 */
export const SCHEMA_COPY_MAX = 2000;

/** The most objects and arrays a value of DATA_KEYS may unfold to (an example's `$ref`s are dereferenced too). */
const DATA_NODES_MAX = 10_000;

const holdsObjects = (v: unknown): boolean => isObject(v) || (Array.isArray(v) && v.some((x) => typeof x === "object" && x !== null));

/**
 * Whether a value (an example, an enum) is a tree of at most DATA_NODES_MAX objects and arrays when written out: shared
 * parts counted each time they are written, a cycle never ends. Such a value is left out of the copy.
 */
function boundedData(value: unknown): boolean {
  const stack = [value];
  for (let nodes = 0; stack.length > 0; ) {
    const v = stack.pop();
    if (typeof v !== "object" || v === null) continue;
    if (++nodes > DATA_NODES_MAX) return false;
    for (const x of Array.isArray(v) ? v : Object.values(v)) if (typeof x === "object" && x !== null) stack.push(x);
  }
  return true;
}

/** A 3.0 schema's `nullable` and boolean `exclusiveMinimum`/`exclusiveMaximum` in 2020-12's terms, in place. */
function from30(out: Record<string, unknown>): void {
  if (out["nullable"] === true && typeof out["type"] === "string") out["type"] = [out["type"], "null"];
  delete out["nullable"];
  for (const [flag, bound] of [["exclusiveMinimum", "minimum"], ["exclusiveMaximum", "maximum"]] as const) {
    if (typeof out[flag] !== "boolean") continue;
    if (out[flag] === true && typeof out[bound] === "number") {
      out[flag] = out[bound];
      delete out[bound];
    } else delete out[flag];
  }
}

/**
 * A JSON Schema 2020-12 copy of an OpenAPI schema: 3.0's `nullable` and boolean `exclusiveMinimum`/
 * `exclusiveMaximum` rewritten, `oneOf` as `anyOf`, a `$ref` left unresolved (external, or the back edge of a cycle)
 * accepted as anything, and the copy bounded in depth and size. It is made level by level, so that past
 * SCHEMA_COPY_MAX objects the deepest levels are the ones cut: a schema copied then keeps its own keywords (type,
 * description, enum, required) and none of its subschemas, which only ever accepts more.
 */
export function toJsonSchema(schema: unknown, v30: boolean): Record<string, unknown> {
  const queue: { s: Record<string, unknown>; out: Record<string, unknown>; ancestors: Set<object>; depth: number }[] = [];
  // A subschema's copy, to be filled when its level comes; `{}` (anything) for a cycle's back edge, a `$ref` or too deep.
  const copyOf = (s: unknown, ancestors: Set<object>, depth: number): unknown => {
    if (Array.isArray(s)) return s.map((x) => copyOf(x, ancestors, depth + 1));
    if (!isObject(s)) return s;
    const out: Record<string, unknown> = {};
    if (!ancestors.has(s) && depth <= MAX_DEPTH && typeof s["$ref"] !== "string") queue.push({ s, out, ancestors: new Set(ancestors).add(s), depth });
    return out;
  };
  const root = copyOf(schema, new Set(), 0);
  for (let i = 0; i < queue.length; i++) {
    const { s, out, ancestors, depth } = queue[i]!;
    // Past the bound by what is queued, not copied: a shared array of 10,000 schemas under each of 2,000 would
    // queue 20 million. One schema's own subschemas may pass it once; those after it are copied without theirs.
    const whole = queue.length < SCHEMA_COPY_MAX;
    for (const [k, v] of Object.entries(s)) {
      if (DATA_KEYS.has(k)) {
        if (boundedData(v)) out[k] = v;
      } else if (!whole && (SCHEMA.has(k) || SCHEMAS.has(k) || SCHEMA_MAPS.has(k) || holdsObjects(v))) continue;
      // oneOf as anyOf: an argument matching two branches (Intellifi's body, whose branches list only read-only fields
      // and require none) is what the API means to take, not an argument no call can give.
      else if (!SCHEMA_MAPS.has(k)) out[k === "oneOf" && !Object.hasOwn(s, "anyOf") ? "anyOf" : k] = copyOf(v, ancestors, depth + 1);
      else if (isObject(v)) {
        // A map of names to schemas: its keys are names, never keywords.
        const m: Record<string, unknown> = {};
        for (const [name, sub] of Object.entries(v)) setOwn(m, name, copyOf(sub, ancestors, depth + 1));
        out[k] = m;
      }
    }
    if (v30) from30(out);
  }
  return isObject(root) ? root : {};
}

/** Marks writeOnly each field of a body named for a secret, wherever argSecrets looks for one (properties, items, allOf, anyOf, oneOf). */
function markSecretFields(schema: Record<string, unknown>, depth: number): void {
  if (depth > MAX_DEPTH) return;
  const props = isObject(schema["properties"]) ? schema["properties"] : {};
  for (const [name, field] of Object.entries(props)) {
    if (!isObject(field)) continue;
    if (namedSecret(name, field)) field["writeOnly"] = true;
    markSecretFields(field, depth + 1);
  }
  const nested = [schema["items"], ...alsoDescribing(schema)];
  for (const sub of nested) if (isObject(sub)) markSecretFields(sub, depth + 1);
}

/** The verb's arguments schema: parameters, then `body`; required as the document says; nothing else. */
export function deriveOperationSchema(op: Operation, version: "3.0" | "3.1"): Record<string, unknown> {
  const v30 = version === "3.0";
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const { param: p, argument } of argumentParameters(op)) {
    const schema = toJsonSchema(p.schema ?? { type: "string" }, v30);
    if (p.description !== undefined && schema["description"] === undefined) schema["description"] = p.description;
    // A renamed argument says what it is sent as: the document's description speaks of the parameter.
    if (argument !== p.name) schema["description"] = `${schema["description"] === undefined ? "" : `${String(schema["description"])} `}(Sent as the ${p.in} parameter ${JSON.stringify(p.name)}.)`;
    if (namedSecret(p.name, schema)) schema["writeOnly"] = true;
    setOwn(properties, argument, schema);
    if (p.required) required.push(argument);
  }
  if (op.body !== undefined) {
    const schema = toJsonSchema(op.body.schema ?? {}, v30);
    if (schema["description"] === undefined) schema["description"] = op.body.description ?? `The request body (${op.body.mediaType}).`;
    markSecretFields(schema, 0);
    properties["body"] = schema;
    if (op.body.required) required.push("body");
  }
  return { type: "object", properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}
