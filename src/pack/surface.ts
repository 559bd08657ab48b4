// surface.json validation (HCP/1.1 §3, hcp.md §2) and normalisation into the Surface model. Pure.

import { checkSchema } from "./schema.js";
import { patternProblems } from "./schema-patterns.js";
import { IssueSink, index, isObject, keyed, prop, show } from "./issues.js";
import { ADAPTER_KINDS, PLANES, checkBinding, checkEnum, checkOpenApi, checkPassThrough, checkTransports, checkUrl, checkWrap, isPackId, isVerbKey } from "./fields.js";
import { checkCarriedMeta, deriveMeta } from "./meta.js";
import { parseArgvToken } from "./placeholders.js";
import type {
  AdapterKind,
  HarnessPackMeta,
  Issue,
  PackFile,
  Plane,
  StimulusTrigger,
  Surface,
  SurfaceVerb,
} from "./types.js";


/** The §3.7 messages, exact. */
export const MESSAGES = {
  idRequired: "id is required",
  wrapBin: "wrap adapter requires wrap.bin",
  wrapVerbs: "wrap requires named commands or pass_through",
  controlBinding: "control plane packs default Binding mothership",
  openapiRef: "openapi adapter requires openapi ref",
  senseOnly: "sense_only adapter requires at least one stimulus trigger_ref",
} as const;

const KNOWN_TOP = new Set([
  "id", "name", "cliBin", "kind", "adapter_kind", "plane", "transports", "binding", "wrap", "openapi",
  "pass_through", "verbs", "stimulusTriggers", "skill_url", "harness", "meta",
]);
const VERB_FIELDS = new Set(["description", "cli", "args", "policy"]);

export interface ValidateContext {
  /** The file named on each issue; default "surface.json". */
  file?: PackFile;
}

export interface SurfaceResult {
  /** Null when the document has any error. */
  surface: Surface | null;
  /** Derived HarnessPackMeta; null exactly when surface is. */
  meta: HarnessPackMeta | null;
  issues: Issue[];
}

/** Every issue of a parsed surface.json document. Never throws. */
export function validateSurface(doc: unknown, ctx?: ValidateContext): Issue[] {
  return parseSurface(doc, ctx).issues;
}

/** Validates a parsed surface.json and, when it has no error, returns its normalised Surface and derived meta. */
export function parseSurface(doc: unknown, ctx?: ValidateContext): SurfaceResult {
  const sink = new IssueSink(ctx?.file ?? "surface.json");
  if (!isObject(doc)) {
    sink.error("invalid_meta", "", `surface.json must be a JSON object, not ${kindOf(doc)}`);
    return { surface: null, meta: null, issues: sink.issues };
  }
  for (const key of Object.keys(doc)) {
    if (!KNOWN_TOP.has(key)) sink.warn("unknown_field", prop("", key), `unknown top-level field ${JSON.stringify(key)} is ignored`);
  }

  const id = checkId(doc.id, sink);
  const name = optString(doc, "name", sink);
  const cliBin = optString(doc, "cliBin", sink);
  const harness = optString(doc, "harness", sink);
  if (harness !== undefined) sink.warn("deprecated", "harness", "inline harness text is deprecated: move the Skill text to HARNESS.md");
  let skillUrl: string | undefined;
  if (doc.skill_url !== undefined) skillUrl = checkUrl(doc.skill_url, "skill_url", sink);
  const kind = checkKind(doc, sink);
  const plane = checkPlane(doc.plane, sink);
  const transports = doc.transports === undefined ? undefined : checkTransports(doc.transports, "transports", sink);
  let binding = doc.binding === undefined ? undefined : checkBinding(doc.binding, "binding", sink);
  if (plane === "control") {
    const mode = isObject(doc.binding) ? doc.binding.mode : undefined;
    if (mode !== undefined && mode !== "mothership") sink.error("binding", "binding.mode", MESSAGES.controlBinding);
    else if (binding !== undefined || doc.binding === undefined) binding = { mode: "mothership", ...binding };
  }
  const wrap = doc.wrap === undefined ? undefined : checkWrap(doc.wrap, "wrap", sink);
  const hasBin = isObject(doc.wrap) && doc.wrap.bin !== undefined;
  if (kind === "wrap" && !hasBin) sink.error("binding", "wrap.bin", MESSAGES.wrapBin);
  else if (isObject(doc.wrap) && !hasBin) sink.error("invalid_meta", "wrap.bin", "wrap.bin is required");
  const openapi = doc.openapi === undefined ? undefined : checkOpenApi(doc.openapi, "openapi", sink);
  if (kind === "openapi" && doc.openapi === undefined) sink.error("invalid_meta", "openapi", MESSAGES.openapiRef);
  let passThrough;
  if (doc.pass_through !== undefined) {
    passThrough = checkPassThrough(doc.pass_through, "pass_through", sink);
    if (kind !== undefined && kind !== "wrap") sink.error("invalid_meta", "pass_through", `pass_through is for wrap packs only, not ${kind}`);
  }
  const triggers = checkTriggers(doc.stimulusTriggers, sink);
  if (kind === "sense_only" && (triggers === undefined || triggers.length === 0)) {
    sink.error("invalid_meta", "stimulusTriggers", MESSAGES.senseOnly);
  }
  const verbs = checkVerbs(doc.verbs, kind, doc.pass_through !== undefined, cliBin, sink);

  let surface: Surface | null = null;
  let meta: HarnessPackMeta | null = null;
  if (!sink.hasErrorsSince(0) && id !== undefined && kind !== undefined && verbs !== undefined) {
    surface = { id, kind, plane, verbs, stimulusTriggers: triggers ?? [] };
    if (name !== undefined) surface.name = name;
    if (cliBin !== undefined) surface.cliBin = cliBin;
    if (transports !== undefined) surface.transports = transports;
    if (binding !== undefined) surface.binding = binding;
    if (wrap !== undefined) surface.wrap = wrap as Surface["wrap"];
    if (openapi !== undefined) surface.openapi = openapi;
    if (passThrough !== undefined) surface.pass_through = passThrough;
    if (skillUrl !== undefined) surface.skill_url = skillUrl;
    if (harness !== undefined) surface.harness = harness;
    meta = deriveMeta(surface);
  }
  if (doc.meta !== undefined) {
    checkCarriedMeta(doc.meta, meta, sink);
    if (sink.hasErrorsSince(0)) {
      surface = null;
      meta = null;
    }
  }
  return { surface, meta, issues: sink.issues };
}

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return `a ${typeof v}`;
}

function checkId(v: unknown, sink: IssueSink): string | undefined {
  if (v === undefined) {
    sink.error("invalid_meta", "id", MESSAGES.idRequired);
    return undefined;
  }
  if (!isPackId(v)) {
    sink.error("invalid_meta", "id", `id must be a pack_id: a string of 1 to 128 characters matching ^[a-z0-9][a-z0-9._-]*$, got ${show(v)}`);
    return undefined;
  }
  return v;
}

function optString(doc: Record<string, unknown>, key: string, sink: IssueSink): string | undefined {
  const v = doc[key];
  if (v === undefined) return undefined;
  if (typeof v !== "string") {
    sink.error("invalid_meta", key, `${key} must be a string, got ${show(v)}`);
    return undefined;
  }
  return v;
}

function checkKind(doc: Record<string, unknown>, sink: IssueSink): AdapterKind | undefined {
  // undefined when absent, null when invalid (reported).
  const one = (key: string): AdapterKind | undefined | null =>
    doc[key] === undefined ? undefined : (checkEnum(ADAPTER_KINDS, doc[key], key, sink) ?? null);
  const kind = one("kind");
  const alias = one("adapter_kind");
  if (kind === null || alias === null) return undefined;
  if (kind !== undefined && alias !== undefined && kind !== alias) {
    sink.error("invalid_meta", "kind", `kind ${JSON.stringify(kind)} and its alias adapter_kind ${JSON.stringify(alias)} disagree`);
    return undefined;
  }
  return kind ?? alias ?? "composite";
}

function checkPlane(v: unknown, sink: IssueSink): Plane {
  if (v === undefined) return "runtime";
  if (typeof v === "string" && (PLANES as readonly string[]).includes(v)) return v as Plane;
  sink.error("invalid_meta", "plane", `plane must be runtime or control, got ${show(v)}`);
  return "runtime";
}

function checkTriggers(v: unknown, sink: IssueSink): StimulusTrigger[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) {
    sink.error("invalid_meta", "stimulusTriggers", `stimulusTriggers must be an array of {ref} objects, got ${show(v)}`);
    return undefined;
  }
  const out: StimulusTrigger[] = [];
  v.forEach((t, i) => {
    const path = index("stimulusTriggers", i);
    if (!isObject(t)) sink.error("invalid_meta", path, `a stimulus trigger must be an object {ref}, got ${show(t)}`);
    else if (typeof t.ref !== "string" || t.ref === "") sink.error("invalid_meta", `${path}.ref`, "ref must be a non-empty string");
    else out.push({ ref: t.ref });
  });
  return out;
}

function checkVerbs(
  v: unknown,
  kind: AdapterKind | undefined,
  hasPassThrough: boolean,
  cliBin: string | undefined,
  sink: IssueSink,
): Record<string, SurfaceVerb> | undefined {
  if (v === undefined) {
    sink.error("missing_verb", "verbs", "verbs is required");
    return undefined;
  }
  if (!isObject(v)) {
    sink.error("invalid_meta", "verbs", `verbs must be an object mapping verb keys to commands, got ${show(v)}`);
    return undefined;
  }
  const keys = Object.keys(v);
  if (keys.length === 0) {
    if (kind === "wrap") {
      if (hasPassThrough) sink.warn("not_conforming", "verbs", "a wrap pack relying on pass_through is a bootstrap, not a conforming HCP/1.1 pack: promote its hot path to named commands");
      else sink.error("wrap", "verbs", MESSAGES.wrapVerbs);
    } else if (kind === "composite" || kind === "openapi") {
      sink.error("missing_verb", "verbs", `${kind === "openapi" ? "an" : "a"} ${kind} pack needs at least one verb`);
    }
  }
  // Only valid verb keys are assigned, so "__proto__" can never reach this plain object.
  const out: Record<string, SurfaceVerb> = {};
  for (const key of keys) {
    const verb = checkVerb(key, v[key], kind, cliBin, sink);
    if (verb !== undefined) out[key] = verb;
  }
  return out;
}

function checkVerb(key: string, v: unknown, kind: AdapterKind | undefined, cliBin: string | undefined, sink: IssueSink): SurfaceVerb | undefined {
  const base = keyed("verbs", key);
  const start = sink.issues.length;
  if (!isVerbKey(key)) {
    sink.error("invalid_meta", base, "verb key must match ^[a-z0-9][a-z0-9_-]*(\\.[a-z0-9][a-z0-9_-]*)*$ and have at most 128 characters");
  }
  if (!isObject(v)) {
    sink.error("invalid_meta", base, `a verb must be an object {description, cli, args, policy}, got ${show(v)}`);
    return undefined;
  }
  for (const f of Object.keys(v)) {
    if (!VERB_FIELDS.has(f)) sink.warn("unknown_field", prop(base, f), `unknown verb field ${JSON.stringify(f)} is ignored`);
  }
  const verb: SurfaceVerb = {};
  if (v.description === undefined) sink.warn("not_conforming", `${base}.description`, "a verb SHOULD have a one-sentence description");
  else if (typeof v.description !== "string") sink.error("invalid_meta", `${base}.description`, `description must be a string, got ${show(v.description)}`);
  else verb.description = v.description;

  const used = new Map<string, string>(); // placeholder name -> path of its first token
  const operands: { name: string; path: string }[] = []; // whole-token placeholders, in template order
  if (v.cli === undefined) {
    if (kind === "wrap") sink.warn("not_conforming", `${base}.cli`, "a wrap verb SHOULD declare cli; without it wrap.argv_template runs");
    else if (kind === "composite") sink.warn("not_conforming", `${base}.cli`, "a composite verb without cli names no program and cannot run");
  } else if (!Array.isArray(v.cli) || v.cli.length === 0) {
    sink.error("invalid_meta", `${base}.cli`, `cli must be a non-empty array of strings, got ${show(v.cli)}`);
  } else {
    const cli = v.cli as unknown[];
    cli.forEach((tok, i) => {
      const path = index(`${base}.cli`, i);
      if (typeof tok !== "string") {
        sink.error("invalid_meta", path, `cli tokens must be strings, got ${show(tok)}`);
        return;
      }
      const t = parseArgvToken(tok);
      if (t.kind === "invalid") sink.error("invalid_meta", path, t.reason);
      else if (t.kind !== "literal") {
        if (i === 0) sink.error("invalid_meta", path, "cli[0] names the program and cannot be a placeholder");
        else if (t.name === "verb") sink.error("invalid_meta", path, "{{verb}} is only allowed in wrap.argv_template");
        else {
          if (!used.has(t.name)) used.set(t.name, path);
          if (t.kind === "whole") operands.push({ name: t.name, path });
        }
      }
    });
    if (cliBin !== undefined && typeof cli[0] === "string" && cli[0] !== cliBin) {
      sink.error("invalid_meta", `${base}.cli[0]`, `cli[0] must be the cliBin ${JSON.stringify(cliBin)}, got ${JSON.stringify(cli[0])}`);
    }
    if (!sink.hasErrorsSince(start)) verb.cli = cli as string[];
  }

  if (v.args !== undefined) {
    const args = v.args;
    const path = `${base}.args`;
    if (!isObject(args)) sink.error("invalid_meta", path, `args must be a JSON Schema object, got ${show(args)}`);
    else if (args.type !== "object") sink.error("invalid_meta", `${path}.type`, `args must be a schema of type "object", got ${show(args.type)}`);
    else {
      const error = checkSchema(args);
      if (error !== null) {
        // A pattern hcp cannot match in linear time fails the check: each is named where it is, not by the compile's words.
        const refused = patternProblems(args, path);
        for (const problem of refused) sink.error("invalid_meta", problem.path, problem.message);
        if (refused.length === 0) sink.error("invalid_meta", path, `args is not a valid JSON Schema (2020-12): ${error}`);
      }
      const props = isObject(args.properties) ? args.properties : {};
      for (const [name, at] of used) {
        if (!Object.hasOwn(props, name)) sink.error("invalid_meta", at, `placeholder {{${name}}} is not a property of args`);
      }
      checkOperandOrder(operands, Array.isArray(args.required) ? args.required : [], sink);
      if (error === null) verb.args = args;
    }
  }
  if (v.policy !== undefined) {
    if (v.policy === "read" || v.policy === "write") verb.policy = v.policy;
    else sink.error("invalid_meta", `${base}.policy`, `policy must be read or write, got ${show(v.policy)}`);
  }
  return sink.hasErrorsSince(start) ? undefined : verb;
}

/**
 * A whole-token placeholder before a required one must be required too (§6.2): dropped when absent,
 * it would shift the required operand into its place, so the template needs it and the schema must say so.
 */
function checkOperandOrder(operands: readonly { name: string; path: string }[], required: readonly unknown[], sink: IssueSink): void {
  const isRequired = (name: string) => required.includes(name);
  operands.forEach((op, i) => {
    if (isRequired(op.name)) return;
    const later = operands.slice(i + 1).find((o) => isRequired(o.name) && o.name !== op.name);
    if (later !== undefined) {
      sink.error(
        "invalid_meta",
        op.path,
        `placeholder {{${op.name}}} stands before the required {{${later.name}}}, so the template needs it, but args does not require it: add "${op.name}" to args.required (dropping it would shift {{${later.name}}} into its place)`,
      );
    }
  });
}
