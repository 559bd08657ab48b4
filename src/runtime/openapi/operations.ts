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
  /** The JSON request body, when the operation takes one. */
  readonly body?: { readonly required: boolean; readonly schema?: Record<string, unknown>; readonly description?: string; readonly mediaType: string };
  /** Security requirements: the operation's, else the document's. */
  readonly security: readonly Record<string, unknown>[];
  /** The raw operation object, for its responses. */
  readonly raw: Record<string, unknown>;
}

/** `application/json` and every `+json` type. */
export function isJsonMediaType(type: string): boolean {
  const base = type.split(";")[0]!.trim().toLowerCase();
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
    };
    out.push(param);
  }
  return out;
}

function bodyOf(rb: unknown): Operation["body"] {
  if (!isObject(rb) || !isObject(rb["content"])) return undefined;
  const type = Object.keys(rb["content"]).find(isJsonMediaType);
  if (type === undefined) return undefined;
  const media = rb["content"][type];
  return {
    required: rb["required"] === true,
    mediaType: type,
    ...(isObject(media) && isObject(media["schema"]) ? { schema: media["schema"] } : {}),
    ...(typeof rb["description"] === "string" ? { description: rb["description"] } : {}),
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
      const body = bodyOf(op["requestBody"]);
      out.push({
        method: m.toUpperCase(),
        path,
        ...(typeof op["operationId"] === "string" ? { operationId: op["operationId"] } : {}),
        ...(typeof op["summary"] === "string" ? { summary: op["summary"] } : {}),
        ...(typeof op["description"] === "string" ? { description: op["description"] } : {}),
        parameters: merged,
        ...(body ? { body } : {}),
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
