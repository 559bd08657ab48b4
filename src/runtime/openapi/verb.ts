// An openapi verb end to end (§6.7): its arguments schema, its plan (the request without credentials),
// and running that plan: credentials applied, the request sent (or, in mock mode, not), the result masked.

import type { LoadedPack } from "../../pack/types.js";
import { OWN_PACKAGE } from "../../package.js";
import { shellWord } from "../../shell-word.js";
import { requestCredentials, type Credentials } from "../secrets/credentials.js";
import { RuntimeError } from "../errors.js";
import type { PlanPolicy, RequestPlan } from "../plan.js";
import { redactText, secretSet, type SecretSet } from "../secrets/redact.js";
import { send } from "./http.js";
import { boundVerb } from "./packs.js";
import { baseUrlOf, buildRequest } from "./request.js";
import { httpResult, mockResult, type HttpResult } from "./result.js";
import { deriveOperationSchema } from "./schema.js";
import { applyCredentials, credentialPlaces } from "./security.js";

/** A `name=value` pair's name (the names are tokens: neither `=` nor `;` is in one), in lower case. */
const cookieName = (pair: string) => pair.slice(0, pair.indexOf("=")).toLowerCase();

const schemas = new WeakMap<object, Record<string, unknown>>();

/** The arguments schema derived from the verb's operation (the verb's own `args` wins, in the caller). */
export function operationArgsSchema(pack: LoadedPack, verbKey: string): Record<string, unknown> {
  const { document, operation } = boundVerb(pack, verbKey);
  let schema = schemas.get(operation);
  if (schema === undefined) {
    schema = deriveOperationSchema(operation, document.version);
    schemas.set(operation, schema);
  }
  return schema;
}

/** The request an openapi verb makes, as a verb's `cli` binding writes it: `["GET", "/notes/{id}"]`. Throws RuntimeError. */
export function operationTemplate(pack: LoadedPack, verbKey: string): string[] {
  const { operation } = boundVerb(pack, verbKey);
  return [operation.method, operation.path];
}

/**
 * The exact plan of an openapi verb from validated arguments (`shown`: as a person is shown them, when any is secret).
 * Throws RuntimeError.
 */
export function requestPlan(pack: LoadedPack, verbKey: string, args: Readonly<Record<string, unknown>>, policy: PlanPolicy, shown?: Readonly<Record<string, unknown>>): RequestPlan {
  const { document, operation } = boundVerb(pack, verbKey);
  const request = buildRequest(operation, args, baseUrlOf(pack.policy, document, pack.surface?.binding?.mode !== "mock"), { credentials: credentialPlaces(document, operation), shown });
  return { pack: pack.surface!.id, verb: verbKey, ...request, policy };
}

export interface RequestRunOptions {
  readonly signal?: AbortSignal;
}

/**
 * Sends a checked plan with the pack's credentials applied per the document's security schemes
 * (binding mode mock: sends nothing and answers from the examples). Every credential, in every
 * form it takes on the wire, is masked in the result and in errors.
 */
export async function runRequestPlan(pack: LoadedPack, plan: RequestPlan, credentials: Credentials, secrets: SecretSet, opts: RequestRunOptions): Promise<HttpResult> {
  const { document, operation } = boundVerb(pack, plan.verb);
  if (pack.surface?.binding?.mode === "mock") return mockResult(plan, operation, secrets);
  const applied = applyCredentials(document, operation, requestCredentials(credentials));
  const masks = secretSet([...secrets.secrets, ...applied.wireForms]);
  const url = new URL(plan.url);
  // No argument is planned where a credential goes (request.ts); were one there, the credential would replace it.
  for (const [k] of applied.query) url.searchParams.delete(k);
  for (const [k, v] of applied.query) url.searchParams.append(k, v);
  // hcp names itself (Node's fetch says `node`; GitHub asks every client for a User-Agent of its own).
  const headers: Record<string, string> = { accept: "application/json, */*;q=0.8", "user-agent": `hcp/${OWN_PACKAGE.version}`, ...plan.headers };
  let body: string | undefined;
  if (plan.body !== undefined) {
    // The plan holds a form as it is sent (request.ts), and text as it is; a JSON body is the value planned.
    body = operation.body?.form !== "json" && typeof plan.body === "string" ? plan.body : JSON.stringify(plan.body);
    headers["content-type"] = operation.body?.mediaType ?? "application/json";
  }
  Object.assign(headers, applied.headers);
  // As in the query: a cookie of a credential's name, in any case, would be replaced by it.
  const credentialCookies = new Set(applied.cookies.map(cookieName));
  const cookies = [...(plan.headers?.["cookie"]?.split("; ") ?? []).filter((pair) => !credentialCookies.has(cookieName(pair))), ...applied.cookies];
  if (cookies.length > 0) headers["cookie"] = cookies.join("; ");
  try {
    const r = await send({ method: plan.method, url, headers, body, timeoutMs: plan.policy.timeout_ms, maxBytes: plan.policy.max_output_bytes, signal: opts.signal });
    const result = httpResult(plan, r, masks);
    if (applied.unmet !== undefined && (result.status === 401 || result.status === 403)) result.note = redactText(noCredential(pack, applied.unmet), masks);
    return result;
  } catch (err) {
    if (err instanceof RuntimeError) err.message = redactText(err.message, masks);
    throw err;
  }
}

/**
 * Why a 401 or 403 may be hcp's doing, not the agent's: the request went out with no credential, none of the schemes
 * the operation takes having a value, and only a person can store one.
 */
function noCredential(pack: LoadedPack, schemes: readonly string[]): string {
  const family = pack.surface?.binding?.family ?? pack.surface!.id;
  const one = schemes.length === 1 ? `its security scheme ${schemes[0]}` : `any of its security schemes (${schemes.join(", ")})`;
  return `hcp sent no credential: none is stored for ${one} in family ${JSON.stringify(family)}; a person stores one with: hcp credentials set ${shellWord(family)} ${shellWord(schemes[0]!)} --scheme`;
}
