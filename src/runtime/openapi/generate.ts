// A pack from an OpenAPI document (hcp.md §11): the document copied in, one verb per operation, policy
// by method (GET/HEAD/OPTIONS read, the rest write, DELETE confirm-gated; a read whose operationId names a change, as
// AWS's GET_TerminateInstances, or whose path does where it has no operationId, a write), the binding from the
// security schemes, and a HARNESS.md for agents. Pure.

import { MAX_VERB_KEY, isVerbKey, shortHash } from "../../pack/fields.js";
import { packIdOf } from "../../pack/from-agentmeta.js";
import { renderPackHarness } from "../../pack/harness-render.js";
import { isObject } from "../../pack/issues.js";
import { cutToolNames, mcpToolProblems } from "../../pack/mcp-names.js";
import { packToolsNote } from "../../pack/mcp-weight.js";
import { isPlaceholderName } from "../../pack/placeholders.js";
import { cutWhole } from "../../pack/sentence.js";
import { withoutRefusedPatterns, type PatternProblem } from "../../pack/schema-patterns.js";
import { GENERATED_MAX_OUTPUT_BYTES, type PolicyDocument, type PolicyVerbEntry, type SurfaceVerb } from "../../pack/types.js";
import { headOf, type OpenApiDocument } from "./document.js";
import { operationsOf, type Operation } from "./operations.js";
import { deriveOperationSchema } from "./schema.js";
import { serverChoice } from "./server-choice.js";
import { namedChange, pathChange } from "./named-change.js";
import { firstAndMore, plural } from "../../listing.js";

export interface OpenApiPack {
  surface: {
    id: string;
    name: string;
    kind: "openapi";
    binding: { mode: "user"; hub: "local-credential"; family: string } | { mode: "public"; hub: "none" };
    openapi: { path: string };
    verbs: Record<string, SurfaceVerb>;
  };
  policy: PolicyDocument;
  /** HARNESS.md's text for a policy: the generated one, or the person's (hcp init --keep-policy). */
  harness: (policy: PolicyDocument) => string;
  /** The document's file name in the pack and its text, as read. */
  document: { path: string; text: string };
  notes: string[];
}

const READ = new Set(["GET", "HEAD", "OPTIONS"]);

/** An operationId in verb-key form: camelCase split with `-`, lower case, other characters `-`. */
function keyOfId(id: string): string {
  return id
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .toLowerCase()
    .split(".")
    .map((s) => s.replace(/[^a-z0-9_-]+/g, "-").replace(/^[^a-z0-9]+|-+$/g, ""))
    .filter((s) => s !== "")
    .join(".");
}

/** `<method>.<path segments>`: `GET /notes/{id}` → `get.notes.id`. */
function keyOfPath(op: Operation): string {
  const segments = op.path.split("/").map((s) => s.toLowerCase().replace(/[^a-z0-9_-]+/g, "-").replace(/^[^a-z0-9]+|-+$/g, "")).filter((s) => s !== "");
  return [op.method.toLowerCase(), ...segments].join(".");
}

const ENTITIES: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", apos: "'", nbsp: " " };

/**
 * A document's text as an agent reads it in a tool's description: its HTML (Stripe's descriptions are `<p>…</p>`) as
 * plain text, a paragraph's end a blank line, the common entities decoded.
 */
function plainText(text: string): string {
  return text
    .replace(/<\/(p|div|li|h[1-6])\s*>|<br\s*\/?>/gi, "\n\n")
    .replace(/<\/?[A-Za-z][^<>]*>/g, "")
    .replace(/&(amp|lt|gt|quot|#39|apos|nbsp);/g, (_, e: string) => ENTITIES[e]!);
}

function firstSentence(text: string): string {
  const line = plainText(text).trim().split(/\n\s*\n/)[0]!.replace(/\s+/g, " ");
  const end = line.search(/[.!?](\s|$)/);
  return end < 0 ? line : line.slice(0, end + 1);
}

/** The most operations renamed or skipped, or patterns left out, given one note each; past it, one note for them all. */
const EACH_NOTED_MAX = 5;

/** A note per item, or one note for them all when there are more than EACH_NOTED_MAX (an API's hundreds). */
function notesOf<T>(items: readonly T[], each: (item: T) => string, all: (items: readonly T[]) => string): string[] {
  return items.length <= EACH_NOTED_MAX ? items.map(each) : [all(items)];
}

/** A pattern of the document a verb's arguments leave out (schema-patterns.ts withoutRefusedPatterns). */
interface LeftOutPattern extends PatternProblem {
  readonly verb: string;
}

const leftOutNote = (p: LeftOutPattern) => `verb "${p.verb}": ${p.path} left out (surface.json gives the verb its arguments without it): ${p.message}`;
const skippedNote = (op: Operation) => `skipped ${op.method} ${op.path}: no verb key fits`;
const unsentNote = (op: Operation) => `${op.method} ${op.path} (${op.unsentBody!.mediaTypes.join(", ")})`;

/** A read by method that names a change: by its operationId, or by its path where it has none (named-change.ts). */
interface WriteByName {
  readonly name: string;
  readonly by: "operationId" | "path";
  readonly change: "removes" | "changes";
}

/** The change a read's name says it makes: its operationId's, else its path's; undefined when it names none. */
function writeByName(op: Operation): WriteByName | undefined {
  const { operationId } = op;
  const [by, name, change] = operationId === undefined ? (["path", `${op.method} ${op.path}`, pathChange(op.path)] as const) : (["operationId", JSON.stringify(operationId), namedChange(operationId)] as const);
  return change === undefined ? undefined : { by, name, change };
}

/** What hcp init says of the reads by method it made writes by their names. */
function writesByNameNote(writes: readonly WriteByName[]): string {
  const one = writes.length === 1;
  const kinds = [...new Set(writes.map((w) => w.by))].map((by) => (one ? `its ${by}` : `their ${by}s`)).join(" or ");
  return (
    `${writes.length} ${one ? "operation is a write" : "operations are writes"} by ${kinds}, though ${one ? "its" : "their"} method reads (${firstAndMore(writes.map((w) => w.name), 3)}): ` +
    "an operation named for a change is taken at its word, and one named for a deletion needs a person's approval, as DELETE does; make one a read in policy.json if it only reads"
  );
}

/**
 * What policy.json lets run without a person once writes are allowed (as hcp init says of a cobra CLI's verbs): the
 * writes not gated are the person's to narrow before they trust the pack. None when every write is gated.
 */
function policyNote(verbs: Readonly<Record<string, PolicyVerbEntry | "read" | "write">>): string[] {
  const entries = Object.values(verbs);
  const writes = entries.filter((p) => p === "write").length;
  if (writes === 0) return [];
  const reads = entries.filter((p) => p === "read").length;
  const gated = entries.length - writes - reads;
  return [
    `${writes} of ${entries.length} verbs write and run without a person wherever writes are allowed (hcp serve --allow-write), beside ` +
      `${plural(reads, "read")} and ${plural(gated, "write")} a person approves (DELETE, those named for a deletion, and batches): check ` +
      `policy.json before you trust the pack, and make a write {"policy": "write", "confirm": true} where a person must approve each run`,
  ];
}

/** The notes of what the generator changed or left out of the document, one each or one for each kind. */
function generatorNotes(renamed: readonly string[], leftOut: readonly LeftOutPattern[], skipped: readonly Operation[], unsent: readonly Operation[]): string[] {
  return [
    ...(unsent.length === 0
      ? []
      : [
          `${unsent.length === 1 ? "1 operation is" : `${unsent.length} operations are`} left out, as each takes its request body only as a type hcp cannot send (it sends JSON, a form or plain text): ${firstAndMore(unsent.map(unsentNote), 3)}`,
        ]),
    ...notesOf(skipped, skippedNote, (all) => `${all.length} operations are skipped, as no verb key fits them (the first: ${skippedNote(all[0]!)})`),
    ...notesOf(
      leftOut,
      leftOutNote,
      (all) =>
        `${all.length} patterns of the document are left out of the arguments of ${new Set(all.map((p) => p.verb)).size} verbs, as hcp cannot match them in linear time or JavaScript does not compile them; surface.json gives those verbs their arguments without them (the first: ${leftOutNote(all[0]!)})`,
    ),
    ...notesOf(
      renamed,
      (r) => r,
      (all) => `${all.length} operations are verbs of other names, as their operationIds are not verb keys (${all.slice(0, 3).join(", ")}, …); surface.json binds each to its method and path`,
    ),
  ];
}

/**
 * A key of at most MAX_VERB_KEY characters: a longer one (Microsoft Graph's operationIds reach 138) keeps its first 119
 * and ends `-` and 8 hex digits of its SHA-256, as a long tool name does, so that keys differing past the cut stay two.
 */
function fitted(key: string): string {
  if (key.length <= MAX_VERB_KEY) return key;
  return `${key.slice(0, MAX_VERB_KEY - 9).replace(/[._-]+$/, "")}-${shortHash(key)}`;
}

/** The document's `components.securitySchemes`, by name; none when it declares none. */
function declaredSchemes(doc: OpenApiDocument): Record<string, unknown> {
  const components = isObject(doc.doc["components"]) ? doc.doc["components"] : {};
  return isObject(components["securitySchemes"]) ? components["securitySchemes"] : {};
}

/** The security scheme names the operations use, most used first. */
function schemesUsed(doc: OpenApiDocument, operations: readonly Operation[]): string[] {
  const declared = declaredSchemes(doc);
  const uses = new Map<string, number>();
  for (const op of operations) for (const req of op.security) for (const name of Object.keys(req)) if (Object.hasOwn(declared, name)) uses.set(name, (uses.get(name) ?? 0) + 1);
  return [...uses.entries()].sort((a, b) => b[1] - a[1]).map(([name]) => name);
}

/**
 * Whether each of several schemes alone is enough: no requirement of any operation names two, and each operation that
 * needs one lists them all as alternatives (Asana's `[{personalAccessToken}, {oauth2}]`). One stored then serves
 * every verb, where the person was told to store each.
 */
function alternativeSchemes(operations: readonly Operation[], schemes: readonly string[]): boolean {
  if (schemes.length < 2) return false;
  return operations.every((op) => {
    const needed = op.security.filter((r) => Object.keys(r).length > 0);
    if (needed.length === 0) return true;
    if (needed.length !== op.security.length || needed.some((r) => Object.keys(r).length !== 1)) return false;
    return schemes.every((s) => needed.some((r) => Object.hasOwn(r, s)));
  });
}

/**
 * Whether an operation at `path` takes other requests in its body: Asana's `POST /batch`, Graph's `/$batch`,
 * Elasticsearch's `/_bulk`, Salesforce's `/composite`, OpenAI's `/batches`, a `/bulk_delete` or `/batch.json`, and
 * Google's custom methods `…:batchUpdate` and `…:batchWrite` (Sheets' `deleteSheet` rides in one); not `:batchGet`.
 * The agent would write a deletion into it, which the pack's gate on DELETE never sees.
 */
function carriesRequests(path: string): boolean {
  const last = path.split("/").findLast((segment) => segment !== "" && !/^\{[^}]*\}$/.test(segment));
  if (last === undefined) return false;
  const name = last.replace(/\{[^}]*\}/g, "");
  return /^[$_]?(batch|batches|bulk|composite)(?:$|[-_.])/i.test(name) || /:batch(?!get)[a-z]*$/i.test(name);
}

/**
 * What the person stores for each scheme whose value is more than a token hcp completes: basic's `user:password`, and
 * an API key sent as the whole Authorization header, its scheme word included (SendGrid's `Bearer SG.…`). A value
 * stored as a bare token there goes out as it is, and the API answers 401 with nothing to say why.
 */
function credentialFormats(doc: OpenApiDocument, schemes: readonly string[]): string[] {
  const declared = declaredSchemes(doc);
  const formats = schemes.flatMap((name) => {
    const s = declared[name];
    if (!isObject(s)) return [];
    if (s["type"] === "http" && String(s["scheme"]).toLowerCase() === "basic") return [`${name}: user:password (hcp sends it base64-encoded)`];
    if (s["type"] === "apiKey" && s["in"] === "header" && String(s["name"]).toLowerCase() === "authorization") return [`${name}: the whole Authorization header, its scheme word too (Bearer …, Token …)`];
    return [];
  });
  return formats.length === 0 ? [] : [`store each credential as the API takes it: ${formats.join("; ")}`];
}

/**
 * Generates the pack. `fileName` is the document's name in the pack (openapi.json or openapi.yaml); `id` the pack id,
 * by default the document's title in id form (`GitHub's REST API` is `github-s-rest-api`).
 */
export function packFromOpenApi(doc: OpenApiDocument, fileName: string, id?: string): OpenApiPack {
  const notes: string[] = [];
  const renamed: string[] = [];
  const leftOut: LeftOutPattern[] = [];
  const skipped: Operation[] = [];
  const info = isObject(doc.doc["info"]) ? doc.doc["info"] : {};
  // The name is one line (HARNESS.md's heading) of at most 128 UTF-16 units, as surface.json's name may be, never
  // ending in half a character.
  const title = typeof info["title"] === "string" && info["title"].trim() !== "" ? cutWhole(info["title"].trim().replace(/\s+/g, " "), 128) : "api";
  id ??= packIdOf(title.replace(/[^A-Za-z0-9._]+/g, "-").replace(/-+$/, ""));
  const operations = operationsOf(doc.doc);
  const verbs: Record<string, SurfaceVerb> = {};
  const policyVerbs: Record<string, PolicyVerbEntry | "read" | "write"> = {};
  const shown: Record<string, SurfaceVerb> = {};
  const schemes = schemesUsed(doc, operations);
  const authVerbs: string[] = [];
  const writesByName: WriteByName[] = [];
  const batches: string[] = [];
  const unsent: Operation[] = [];
  for (const op of operations) {
    // Sent without its body, such an operation would be a write the API takes as asked for with nothing (an upload
    // whose file the document calls optional answered 201 to an empty POST): left out, its body required or not.
    if (op.unsentBody !== undefined) {
      unsent.push(op);
      continue;
    }
    const fromId = op.operationId === undefined ? "" : fitted(keyOfId(op.operationId));
    const base = isVerbKey(fromId) ? fromId : fitted(keyOfPath(op));
    if (!isVerbKey(base)) {
      skipped.push(op);
      continue;
    }
    let key = base;
    for (let n = 2; Object.hasOwn(verbs, key); n++) key = fitted(`${base}-${n}`);
    const verb: SurfaceVerb = {
      description: (op.summary === undefined ? "" : plainText(op.summary).trim()) || (op.description ? firstSentence(op.description) : `${op.method} ${op.path}.`),
    };
    // The key names the operation only when it is its operationId; otherwise the verb says which one it is.
    if (key !== op.operationId) {
      verb.cli = [op.method, op.path];
      if (op.operationId !== undefined) renamed.push(`operation ${JSON.stringify(op.operationId)} is verb "${key}"`);
    }
    const written = READ.has(op.method) ? writeByName(op) : undefined;
    if (written !== undefined) writesByName.push(written);
    verb.policy = READ.has(op.method) && written === undefined ? "read" : "write";
    // A pattern hcp cannot match in linear time would fail the pack: the verb's own args leave it out, and say so.
    const derived = deriveOperationSchema(op, doc.version);
    const { schema: args, removed } = withoutRefusedPatterns(derived, "args");
    if (removed.length > 0) {
      verb.args = args;
      for (const r of removed) leftOut.push({ verb: key, ...r });
    }
    verbs[key] = verb;
    const carries = !READ.has(op.method) && carriesRequests(op.path);
    if (carries) batches.push(key);
    policyVerbs[key] = op.method === "DELETE" || written?.change === "removes" || carries ? { policy: "write", confirm: true } : verb.policy;
    // HARNESS.md shows every verb's request, as hcp describe does, however the verb is bound.
    shown[key] = { ...verb, cli: [op.method, op.path], args };
    if (op.security.some((r) => Object.keys(r).length > 0)) authVerbs.push(key);
  }
  const binding: OpenApiPack["surface"]["binding"] = schemes.length > 0 ? { mode: "user", hub: "local-credential", family: id } : { mode: "public", hub: "none" };
  const policy: PolicyDocument = { surface_id: id, verbs: policyVerbs, limits: { max_output_bytes: GENERATED_MAX_OUTPUT_BYTES } };
  const named = schemes.filter((s) => isPlaceholderName(s));
  if (named.length > 0) policy.credentials = named;
  notes.push(...credentialFormats(doc, schemes));
  if (named.length < schemes.length) notes.push(`security schemes ${schemes.filter((s) => !isPlaceholderName(s)).join(", ")} are not listed in policy.json credentials (not a variable-style name)`);
  const server = serverChoice(headOf(doc));
  if (server.baseUrl !== undefined) policy.openapi = { base_url: server.baseUrl };
  if (server.note !== undefined) notes.push(server.note);
  if (writesByName.length > 0) notes.push(writesByNameNote(writesByName));
  if (batches.length > 0) notes.push(`${plural(batches.length, "verb")} send${batches.length === 1 ? "s" : ""} other requests in ${batches.length === 1 ? "its" : "their"} body (a batch: ${firstAndMore(batches.map((k) => JSON.stringify(k)), 5)}), deletions among them as the agent writes: each needs a person's approval, as a DELETE does`);
  notes.push(...policyNote(policyVerbs));
  notes.push(...generatorNotes(renamed, leftOut, skipped, unsent), ...mcpToolProblems(id, shown), ...cutToolNames(id, Object.keys(shown)), ...packToolsNote({ id, name: title, verbs: shown }, policy));
  const harness = (inForce: PolicyDocument) =>
    renderPackHarness({
      surface: { id, name: title, verbs: shown },
      policy: inForce,
      summary: typeof info["description"] === "string" ? firstSentence(info["description"]) : "",
      api: true,
      ...(schemes.length > 0 ? { credentials: { family: id, variables: schemes, verbs: authVerbs, alternatives: alternativeSchemes(operations, schemes) } } : {}),
    });
  return {
    surface: { id, name: title, kind: "openapi", binding, openapi: { path: fileName }, verbs },
    policy,
    harness,
    document: { path: fileName, text: doc.text },
    notes,
  };
}
