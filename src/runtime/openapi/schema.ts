// The arguments of an openapi verb as one JSON Schema (2020-12), derived from the operation (§6.7):
// one property per path, query and header parameter, and `body` for a JSON request body. Pure.

import { isObject } from "../../pack/issues.js";
import { setOwn } from "../../json/own.js";
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

/** The parameters that become arguments: path, query and header, first of a name wins. */
export function argumentParameters(op: Operation): Parameter[] {
  const seen = new Set<string>();
  const out: Parameter[] = [];
  for (const p of op.parameters) {
    if (p.in === "cookie" || (p.in === "header" && IGNORED_HEADERS.has(p.name.toLowerCase()))) continue;
    if (seen.has(p.name) || (op.body !== undefined && p.name === "body")) continue;
    seen.add(p.name);
    out.push(p);
  }
  return out;
}

/**
 * A JSON Schema 2020-12 copy of an OpenAPI schema: 3.0's `nullable` and boolean `exclusiveMinimum`/
 * `exclusiveMaximum` rewritten, a `$ref` left unresolved (external, or the back edge of a cycle)
 * accepted as anything, and the copy bounded in depth.
 */
export function toJsonSchema(schema: unknown, v30: boolean): Record<string, unknown> {
  const walk = (s: unknown, ancestors: Set<object>, depth: number): unknown => {
    if (Array.isArray(s)) return s.map((x) => walk(x, ancestors, depth + 1));
    if (!isObject(s)) return s;
    if (ancestors.has(s) || depth > MAX_DEPTH || typeof s["$ref"] === "string") return {};
    const inner = new Set(ancestors).add(s);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s)) {
      if (DATA_KEYS.has(k)) out[k] = v;
      else if (k === "properties" || k === "patternProperties" || k === "$defs" || k === "dependentSchemas") {
        // A map of names to schemas: its keys are names, never keywords.
        if (!isObject(v)) continue;
        const m: Record<string, unknown> = {};
        for (const [name, sub] of Object.entries(v)) setOwn(m, name, walk(sub, inner, depth + 1));
        out[k] = m;
      } else out[k] = walk(v, inner, depth + 1);
    }
    if (v30) {
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
    return out;
  };
  const converted = walk(schema, new Set(), 0);
  return isObject(converted) ? converted : {};
}

/** The verb's arguments schema: parameters, then `body`; required as the document says; nothing else. */
export function deriveOperationSchema(op: Operation, version: "3.0" | "3.1"): Record<string, unknown> {
  const v30 = version === "3.0";
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const p of argumentParameters(op)) {
    const schema = toJsonSchema(p.schema ?? { type: "string" }, v30);
    if (p.description !== undefined && schema["description"] === undefined) schema["description"] = p.description;
    setOwn(properties, p.name, schema);
    if (p.required) required.push(p.name);
  }
  if (op.body !== undefined) {
    const schema = toJsonSchema(op.body.schema ?? {}, v30);
    if (schema["description"] === undefined) schema["description"] = op.body.description ?? `The request body (${op.body.mediaType}).`;
    properties["body"] = schema;
    if (op.body.required) required.push("body");
  }
  return { type: "object", properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}
