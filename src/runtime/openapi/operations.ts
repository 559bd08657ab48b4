// The operations of an OpenAPI document, and the one a verb names: by operationId, or by `cli: [METHOD, path]`. Pure.

import { isObject } from "../../pack/issues.js";
import type { SurfaceVerb } from "../../pack/types.js";

export const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

export type ParameterIn = "path" | "query" | "header" | "cookie";

export interface Parameter {
  readonly name: string;
  readonly in: ParameterIn;
  readonly required: boolean;
  readonly description?: string;
  readonly schema?: Record<string, unknown>;
  /** How a query value is written (OpenAPI's `style`, `explode`): form and exploded unless the document says. */
  readonly style?: string;
  readonly explode?: boolean;
}

export interface Operation {
  /** Upper case: GET, POST… */
  readonly method: string;
  /** The path template, as in the document: `/accounts/{id}`. */
  readonly path: string;
  readonly operationId?: string;
  readonly summary?: string;
  readonly description?: string;
  /** Path-level parameters merged with the operation's (the operation's win). */
  readonly parameters: readonly Parameter[];
  /** The request body hcp sends, when the operation takes one: JSON, else a form, else plain text (bodyOf). */
  readonly body?: RequestBody;
  /** A request body hcp cannot send (multipart, binary…): its media types, and whether the operation requires it. */
  readonly unsentBody?: { readonly required: boolean; readonly mediaTypes: readonly string[] };
  /** Security requirements: the operation's, else the document's. */
  readonly security: readonly Record<string, unknown>[];
  /** The raw operation object, for its responses. */
  readonly raw: Record<string, unknown>;
}

/** How a request body is written: as JSON, as `application/x-www-form-urlencoded`, or as the text it is. */
export type BodyForm = "json" | "form" | "text";

export interface RequestBody {
  readonly required: boolean;
  readonly schema?: Record<string, unknown>;
  readonly description?: string;
  readonly mediaType: string;
  readonly form: BodyForm;
  /** A form's fields' `style` and `explode` (the media type's `encoding`), by field name. */
  readonly encoding?: Readonly<Record<string, { readonly style?: string; readonly explode?: boolean }>>;
}

/** A media type without its parameters, lower case: `Application/JSON; charset=utf-8` → `application/json`. */
const baseType = (type: string): string => type.split(";")[0]!.trim().toLowerCase();

/** `application/json` and every `+json` type. */
export function isJsonMediaType(type: string): boolean {
  const base = baseType(type);
  return base === "application/json" || /^application\/[^\s/]+\+json$/.test(base);
}

function parametersOf(list: unknown): Parameter[] {
  if (!Array.isArray(list)) return [];
  const out: Parameter[] = [];
  for (const p of list) {
    if (!isObject(p) || typeof p["name"] !== "string" || !["path", "query", "header", "cookie"].includes(p["in"] as string)) continue;
    const param: Parameter = {
      name: p["name"],
      in: p["in"] as ParameterIn,
      required: p["in"] === "path" || p["required"] === true,
      ...(typeof p["description"] === "string" ? { description: p["description"] } : {}),
      ...(isObject(p["schema"]) ? { schema: p["schema"] } : {}),
      ...(typeof p["style"] === "string" ? { style: p["style"] } : {}),
      ...(typeof p["explode"] === "boolean" ? { explode: p["explode"] } : {}),
    };
    out.push(param);
  }
  return out;
}

/** How hcp writes a body of a media type, when it can. */
function bodyFormOf(type: string): BodyForm | undefined {
  if (isJsonMediaType(type)) return "json";
  const base = baseType(type);
  return base === "application/x-www-form-urlencoded" ? "form" : base === "text/plain" ? "text" : undefined;
}

/** A form's `encoding`: the style and explode of each field that gives them. */
function encodingOf(media: unknown): RequestBody["encoding"] {
  if (!isObject(media) || !isObject(media["encoding"])) return undefined;
  const out: Record<string, { style?: string; explode?: boolean }> = {};
  for (const [field, e] of Object.entries(media["encoding"])) {
    if (!isObject(e)) continue;
    out[field] = { ...(typeof e["style"] === "string" ? { style: e["style"] } : {}), ...(typeof e["explode"] === "boolean" ? { explode: e["explode"] } : {}) };
  }
  return out;
}

/** The operation's request body as hcp sends it (JSON first, then a form, then plain text), or the types it cannot send. */
function bodyOf(rb: unknown): Pick<Operation, "body" | "unsentBody"> {
  if (!isObject(rb) || !isObject(rb["content"])) return {};
  const types = Object.keys(rb["content"]);
  const required = rb["required"] === true;
  // JSON first, plain `application/json` before the other JSON types, and JSON Patch (an array of operations, where an
  // agent means to send the fields it changes: Kubernetes' PATCH lists it first) after them; then a form, then text.
  const rank = (t: string): number => {
    const form = bodyFormOf(t);
    if (form !== "json") return form === "form" ? 3 : form === "text" ? 4 : Infinity;
    const base = baseType(t);
    return base === "application/json" ? 0 : base === "application/json-patch+json" ? 2 : 1;
  };
  // The first of the best rank, in document order.
  let type: string | undefined;
  for (const t of types) if (rank(t) < (type === undefined ? Infinity : rank(type))) type = t;
  if (type === undefined) return types.length === 0 ? {} : { unsentBody: { required, mediaTypes: types } };
  const media = rb["content"][type];
  const form = bodyFormOf(type)!;
  const encoding = form === "form" ? encodingOf(media) : undefined;
  return {
    body: {
      required,
      mediaType: type,
      form,
      ...(isObject(media) && isObject(media["schema"]) ? { schema: media["schema"] } : form === "text" ? { schema: { type: "string" } } : {}),
      ...(typeof rb["description"] === "string" ? { description: rb["description"] } : {}),
      ...(encoding === undefined ? {} : { encoding }),
    },
  };
}

/** Every operation of the document, in document order. */
export function operationsOf(doc: Record<string, unknown>): Operation[] {
  const out: Operation[] = [];
  const paths = isObject(doc["paths"]) ? doc["paths"] : {};
  const docSecurity = Array.isArray(doc["security"]) ? doc["security"].filter(isObject) : [];
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    const shared = parametersOf(item["parameters"]);
    for (const m of METHODS) {
      const op = item[m];
      if (!isObject(op)) continue;
      const own = parametersOf(op["parameters"]);
      const merged = [...shared.filter((s) => !own.some((o) => o.name === s.name && o.in === s.in)), ...own];
      out.push({
        method: m.toUpperCase(),
        path,
        ...(typeof op["operationId"] === "string" ? { operationId: op["operationId"] } : {}),
        ...(typeof op["summary"] === "string" ? { summary: op["summary"] } : {}),
        ...(typeof op["description"] === "string" ? { description: op["description"] } : {}),
        parameters: merged,
        ...bodyOf(op["requestBody"]),
        security: Array.isArray(op["security"]) ? op["security"].filter(isObject) : docSecurity,
        raw: op,
      });
    }
  }
  return out;
}

/** What finds an operation: its method, path and operationId. */
export type OperationKey = Pick<Operation, "method" | "path" | "operationId">;

/** The operations by method and path, and by operationId: the first of each in document order, as a search finds it. */
export interface OperationLookup<T extends OperationKey> {
  readonly byRoute: ReadonlyMap<string, T>;
  readonly byId: ReadonlyMap<string, T>;
}

const route = (method: string, path: string) => `${method} ${path}`;

export function lookupOf<T extends OperationKey>(operations: readonly T[]): OperationLookup<T> {
  const byRoute = new Map<string, T>();
  const byId = new Map<string, T>();
  for (const op of operations) {
    const at = route(op.method, op.path);
    if (!byRoute.has(at)) byRoute.set(at, op);
    if (op.operationId !== undefined && !byId.has(op.operationId)) byId.set(op.operationId, op);
  }
  return { byRoute, byId };
}

/** The operation a verb names: by `cli: [METHOD, path]`, else by its key as operationId; a sentence when none. */
export function findOperation<T extends OperationKey>(operations: OperationLookup<T>, verbKey: string, verb: SurfaceVerb): T | string {
  if (verb.cli !== undefined) {
    const [method, path, ...rest] = verb.cli;
    if (method === undefined || path === undefined || rest.length > 0) {
      return `an openapi verb's cli is ["<METHOD>", "<path template>"], got ${JSON.stringify(verb.cli)}`;
    }
    return operations.byRoute.get(route(method.toUpperCase(), path)) ?? `the document has no operation ${method.toUpperCase()} ${path}`;
  }
  return operations.byId.get(verbKey) ?? `the document has no operation with operationId ${JSON.stringify(verbKey)} (or give the verb cli: ["<METHOD>", "<path>"])`;
}
