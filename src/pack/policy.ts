// policy.json (hcp.md §4): strict validation against its surface, and the effective policy of a verb. Pure.

import { IssueSink, isObject, keyed, prop, show } from "./issues.js";
import { PLACEHOLDER_NAME } from "./placeholders.js";
import { wrapTemplate } from "./fields.js";
import { firstDuplicateKey } from "../json/literal.js";
import {
  DEFAULT_APPROVAL_TTL_S,
  DEFAULT_CONCURRENCY,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_TIMEOUT_MS,
  type ConfirmMode,
  type ConfirmSetting,
  type EffectivePolicy,
  type Issue,
  type LoadedPack,
  type PolicyDocument,
  type PolicyLevel,
  type PolicyLimits,
  type PolicyVerbEntry,
  type Surface,
} from "./types.js";

const LEVELS: readonly PolicyLevel[] = ["read", "write", "deny"];
const TOP = ["surface_id", "default", "verbs", "pass_through", "limits", "env", "cwd", "openapi", "credentials"];
const ENTRY = ["policy", "confirm", "timeout_ms", "max_output_bytes", "idempotent"];
const LIMITS = ["timeout_ms", "max_output_bytes", "concurrency", "approval_ttl_s"];
const CONFIRM_VALUES: readonly unknown[] = [true, false, "person", "plan"];

export interface PolicyResult {
  /** Null when the document is absent or has any error. */
  policy: PolicyDocument | null;
  issues: Issue[];
}

/** Every issue of a parsed policy.json (`undefined` = no policy.json) checked against its surface. Never throws. */
export function validatePolicy(doc: unknown, surface: Surface | null): Issue[] {
  return parsePolicy(doc, surface).issues;
}

/**
 * Validates policy.json. The `surface_id` mismatch is reported against surface.json `id`
 * with code missing_verb (§3.7); every other issue concerns policy.json. Unknown verb keys
 * are checked only when the surface is known.
 */
export function parsePolicy(doc: unknown, surface: Surface | null): PolicyResult {
  const sink = new IssueSink("policy.json");
  if (doc === undefined) {
    sink.warn("policy", "", "no policy.json: each verb's policy hint applies, write where there is none, and every write verb needs a person's approval");
    return { policy: null, issues: sink.issues };
  }
  if (!isObject(doc)) {
    sink.error("policy", "", `policy.json must be a JSON object, got ${show(doc)}`);
    return { policy: null, issues: sink.issues };
  }
  for (const k of Object.keys(doc)) {
    if (!TOP.includes(k)) sink.error("policy", prop("", k), `unknown field ${JSON.stringify(k)} in policy.json`);
  }
  if (typeof doc.surface_id !== "string" || doc.surface_id === "") {
    sink.error("policy", "surface_id", `surface_id must be a non-empty string, got ${show(doc.surface_id)}`);
  } else if (surface !== null && doc.surface_id !== surface.id) {
    sink.issues.push({
      severity: "error",
      code: "missing_verb",
      path: "id",
      message: `id ${JSON.stringify(surface.id)} does not match policy surface_id ${JSON.stringify(doc.surface_id)}`,
      file: "surface.json",
    });
  }
  level(doc.default, "default", sink);
  level(doc.pass_through, "pass_through", sink);
  if (doc.verbs !== undefined) {
    if (!isObject(doc.verbs)) sink.error("policy", "verbs", `verbs must be an object, got ${show(doc.verbs)}`);
    else {
      for (const [key, entry] of Object.entries(doc.verbs)) {
        const path = keyed("verbs", key);
        if (surface !== null && !Object.hasOwn(surface.verbs, key)) {
          sink.error("missing_verb", path, `verb ${JSON.stringify(key)} is not declared in surface.json`);
        }
        if (isObject(entry)) {
          for (const k of Object.keys(entry)) {
            if (!ENTRY.includes(k)) sink.error("policy", prop(path, k), `unknown field ${JSON.stringify(k)} in a verb policy`);
          }
          if (entry.policy === undefined) sink.error("policy", `${path}.policy`, "policy is required");
          else level(entry.policy, `${path}.policy`, sink);
          if (entry.confirm !== undefined && !CONFIRM_VALUES.includes(entry.confirm)) {
            sink.error("policy", `${path}.confirm`, `confirm must be true, "person", "plan" or false, got ${show(entry.confirm)}`);
          }
          if (entry.idempotent !== undefined && typeof entry.idempotent !== "boolean") {
            sink.error("policy", `${path}.idempotent`, `idempotent must be a boolean, got ${show(entry.idempotent)}`);
          }
          positive(entry.timeout_ms, `${path}.timeout_ms`, sink);
          positive(entry.max_output_bytes, `${path}.max_output_bytes`, sink);
        } else {
          level(entry, path, sink);
        }
      }
    }
  }
  if (doc.limits !== undefined) {
    if (!isObject(doc.limits)) sink.error("policy", "limits", `limits must be an object, got ${show(doc.limits)}`);
    else {
      for (const k of Object.keys(doc.limits)) {
        if (!LIMITS.includes(k)) sink.error("policy", prop("limits", k), `unknown field ${JSON.stringify(k)} in limits`);
      }
      positive(doc.limits.timeout_ms, "limits.timeout_ms", sink);
      positive(doc.limits.max_output_bytes, "limits.max_output_bytes", sink);
      positive(doc.limits.concurrency, "limits.concurrency", sink);
      positive(doc.limits.approval_ttl_s, "limits.approval_ttl_s", sink);
    }
  }
  names(doc.env, "env", sink);
  names(doc.credentials, "credentials", sink);
  if (doc.cwd !== undefined && (typeof doc.cwd !== "string" || doc.cwd === "" || doc.cwd.includes("\0"))) {
    sink.error("policy", "cwd", `cwd must be a folder path (relative to the pack folder, or absolute), got ${show(doc.cwd)}`);
  }
  checkOpenApiPolicy(doc.openapi, sink);
  if (sink.hasErrorsSince(0)) return { policy: null, issues: sink.issues };
  const policy = doc as unknown as PolicyDocument;
  if (surface !== null) {
    hintContradictions(policy, surface, sink);
    passThroughReach(policy, surface, sink);
  }
  return { policy, issues: sink.issues };
}

/** `env` and `credentials`: arrays of variable names. */
function names(v: unknown, field: string, sink: IssueSink): void {
  if (v === undefined) return;
  if (!Array.isArray(v)) {
    sink.error("policy", field, `${field} must be an array of variable names, got ${show(v)}`);
    return;
  }
  v.forEach((name, i) => {
    if (typeof name !== "string" || !PLACEHOLDER_NAME.test(name)) {
      sink.error("policy", `${field}[${i}]`, `${field} entries must be variable names matching ${PLACEHOLDER_NAME.source}, got ${show(name)}`);
    }
  });
}

/** `openapi: {base_url}`: an absolute http(s) URL. */
function checkOpenApiPolicy(v: unknown, sink: IssueSink): void {
  if (v === undefined) return;
  if (!isObject(v)) {
    sink.error("policy", "openapi", `openapi must be an object {base_url}, got ${show(v)}`);
    return;
  }
  for (const k of Object.keys(v)) if (k !== "base_url") sink.error("policy", prop("openapi", k), `unknown field ${JSON.stringify(k)} in openapi`);
  const url = v.base_url;
  if (url === undefined) return;
  let ok = false;
  try {
    ok = typeof url === "string" && ["http:", "https:"].includes(new URL(url).protocol);
  } catch {
    ok = false;
  }
  if (!ok) sink.error("policy", "openapi.base_url", `openapi.base_url must be an absolute http: or https: URL, got ${show(url)}`);
}

/**
 * The issue of a policy.json text that repeats a key anywhere (§4: "last one wins" would let a
 * later line loosen an earlier one); undefined when there is none or the text is not JSON (the
 * parser reports that).
 */
export function duplicateKeyIssue(text: string): Issue | undefined {
  const path = firstDuplicateKey(text);
  if (path === undefined) return undefined;
  return { severity: "error", code: "policy", path, message: `duplicate key ${JSON.stringify(path)}: a key may appear only once in policy.json`, file: "policy.json" };
}

function level(v: unknown, path: string, sink: IssueSink): void {
  if (v !== undefined && !(LEVELS as readonly unknown[]).includes(v)) {
    sink.error("policy", path, `${path} must be read, write or deny, got ${show(v)}`);
  }
}

function positive(v: unknown, path: string, sink: IssueSink): void {
  if (v !== undefined && !(typeof v === "number" && Number.isSafeInteger(v) && v > 0)) {
    sink.error("policy", path, `${path} must be a positive integer, got ${show(v)}`);
  }
}

/** A verb hint that policy.json overrides with another allowing level (deny is never a contradiction). */
function hintContradictions(policy: PolicyDocument, surface: Surface, sink: IssueSink): void {
  for (const [key, verb] of Object.entries(surface.verbs)) {
    if (verb.policy === undefined) continue;
    const entry = policy.verbs && Object.hasOwn(policy.verbs, key) ? policy.verbs[key] : undefined;
    const lvl = entry === undefined ? policy.default : typeof entry === "string" ? entry : entry.policy;
    if (lvl === undefined || lvl === "deny" || lvl === verb.policy) continue;
    const path = entry === undefined ? "default" : keyed("verbs", key);
    sink.warn("policy", path, `surface.json hints ${JSON.stringify(verb.policy)} for verb ${JSON.stringify(key)} but policy.json says ${JSON.stringify(lvl)}`);
  }
}

/**
 * A pass-through runs its allowed subcommands with any arguments the agent writes, under its own policy: one that
 * reaches a verb policy.json holds tighter (a denied `remote.remove`, a `remote.set-url` a person approves, under a
 * read pass-through of `remote`) would run that verb's very command without what its policy asks. Such a policy.json
 * is an error, so that what a person reads of a verb (denied, approved at each run) is never untrue.
 */
function passThroughReach(policy: PolicyDocument, surface: Surface, sink: IssueSink): void {
  const passing = policy.pass_through;
  const allowed = surface.pass_through?.allowedSubcommands;
  if (passing === undefined || passing === "deny" || allowed === undefined) return;
  const pack = { surface, policy };
  const reached = new Map<string, string[]>();
  // A flag allowed as a "subcommand" (`--no-pager`, `-C`) lets the agent write any subcommand after it: it reaches all.
  const flag = allowed.find((word) => word.startsWith("-"));
  for (const [key, verb] of Object.entries(surface.verbs)) {
    const held = classOf(effectivePolicy(pack, key));
    if (POLICY_CLASSES.indexOf(held) <= POLICY_CLASSES.indexOf(passing)) continue;
    // As it runs: `{{verb}}` is the key's segments (runtime/argv.ts).
    const words = subcommandsOf(wrapTemplate(surface.wrap, verb).flatMap((t) => (t === "{{verb}}" ? key.split(".") : [t])));
    const via = flag ?? (words.includes(ANY) ? ANY : words.find((w) => allowed.includes(w)));
    if (via !== undefined) reached.set(via, [...(reached.get(via) ?? []), `${JSON.stringify(key)} (${CLASS_WORDS[held]})`]);
  }
  for (const [word, verbs] of reached) {
    const them = verbs.length === 1 ? "it" : "them";
    const those = verbs.length === 1 ? "that verb" : "those verbs";
    const named = `${verbs.length === 1 ? "verb" : "verbs"} ${verbs.join(", ")}`;
    sink.error(
      "policy",
      "pass_through",
      word === ANY
        ? `pass_through ${JSON.stringify(passing)} runs ${allowed.map((w) => JSON.stringify(w)).join(", ")} with any arguments the agent writes, and the subcommand of ${named} is a placeholder (or may be), which any of them may stand for: it would run ${them} without what policy.json asks of ${them}: deny the pass-through, or give ${those} no more than ${JSON.stringify(passing)}`
        : `pass_through ${JSON.stringify(passing)} runs ${JSON.stringify(word)} with any arguments the agent writes, so it would run ${named} without what policy.json asks of ${them}: deny the pass-through, take ${JSON.stringify(word)} out of surface.json pass_through.allowedSubcommands, or give ${those} no more than ${JSON.stringify(passing)}`,
    );
  }
}

/** A subcommand word no literal names: a placeholder stands where the command's subcommand may be. */
const ANY = "{{…}}";

/**
 * The words that may be a command's subcommand, as a pass-through names it: the first token after the program that is
 * no flag, and before it each token that follows a flag without `=` (`git -c core.pager=cat remote`: `core.pager=cat`
 * may be that flag's value, or the subcommand); ANY where a placeholder stands in such a place.
 */
function subcommandsOf(tokens: readonly string[]): string[] {
  const words: string[] = [];
  let afterFlag = false;
  for (const token of tokens) {
    // A flag first, whatever its value: `--namespace={{ns}}` is never a subcommand (a placeholder is a whole token, or
    // a flag's value after `=`).
    if (token.startsWith("-")) {
      afterFlag = token !== "--" && !token.includes("=");
      continue;
    }
    if (token.includes("{{")) return [...words, ANY];
    words.push(token);
    if (!afterFlag) return words;
    afterFlag = false;
  }
  return words;
}

/** How a policy class reads in an error. */
const CLASS_WORDS: Record<PolicyClass, string> = { read: "a read", write: "a write, run with --allow-write", person: "a person approves each run", deny: "denied" };

/**
 * The effective policy of a verb (§4): policy.json entry, else its `default`, else the verb's
 * hint, else write. Limits: entry, else policy.json `limits`, else 60000 ms and 1 MiB.
 * A verb the surface does not declare is denied.
 */
export function effectivePolicy(pack: { surface: Pick<Surface, "verbs"> | null; policy: PolicyDocument | null }, verbKey: string): EffectivePolicy {
  const { surface, policy } = pack;
  const limits = packLimits(policy);
  const verb = surface !== null && Object.hasOwn(surface.verbs, verbKey) ? surface.verbs[verbKey] : undefined;
  if (verb === undefined) return { policy: "deny", confirm: false, ...limits, source: "fallback" };
  const raw = policy?.verbs && Object.hasOwn(policy.verbs, verbKey) ? policy.verbs[verbKey] : undefined;
  if (raw !== undefined) {
    const entry: PolicyVerbEntry = typeof raw === "string" ? { policy: raw } : raw;
    return {
      policy: entry.policy,
      confirm: confirmMode(entry.confirm),
      timeout_ms: entry.timeout_ms ?? limits.timeout_ms,
      max_output_bytes: entry.max_output_bytes ?? limits.max_output_bytes,
      approval_ttl_s: limits.approval_ttl_s,
      source: "policy",
    };
  }
  if (policy?.default !== undefined) return { policy: policy.default, confirm: false, ...limits, source: "default" };
  // Without policy.json every write needs a person (§4): forgetting the file never removes a gate.
  const hinted = verb.policy ?? "write";
  return { policy: hinted, confirm: policy === null && hinted === "write" ? "person" : false, ...limits, source: verb.policy !== undefined ? "hint" : "fallback" };
}

/**
 * Who decides when a verb runs, as a person trusting a pack is told: the agent at its call (`read`; `write` once hcp
 * runs with --allow-write), a person at each run (`person`), or nobody (`deny`). A plan-checked verb is the agent's.
 */
export type PolicyClass = "read" | "write" | "person" | "deny";

/** The classes from what the agent runs alone to what never runs. */
export const POLICY_CLASSES: readonly PolicyClass[] = ["read", "write", "person", "deny"];

const classOf = (p: EffectivePolicy): PolicyClass => (p.policy === "deny" ? "deny" : p.confirm === "person" ? "person" : p.policy);

/** Each verb's policy class, in the surface's order. */
export function policyClasses(pack: { surface: Surface | null; policy: PolicyDocument | null }): Record<string, PolicyClass> {
  return Object.fromEntries(Object.keys(pack.surface?.verbs ?? {}).map((key) => [key, classOf(effectivePolicy(pack, key))]));
}

/** `true` and "person" → "person"; "plan" → "plan"; false or absent → false. */
export function confirmMode(setting: ConfirmSetting | undefined): ConfirmMode {
  return setting === true || setting === "person" ? "person" : setting === "plan" ? "plan" : false;
}

/** Whether policy.json marks a verb `idempotent` (running it twice does no more than once). */
export function isIdempotent(pack: { policy: PolicyDocument | null }, verbKey: string): boolean {
  const raw = pack.policy?.verbs && Object.hasOwn(pack.policy.verbs, verbKey) ? pack.policy.verbs[verbKey] : undefined;
  return typeof raw === "object" && raw.idempotent === true;
}

/** The policy of pass_through invocations: policy.json `pass_through`, default deny; pack-wide limits. */
export function passThroughPolicy(pack: { policy: PolicyDocument | null }): EffectivePolicy {
  const p = pack.policy;
  return {
    policy: p?.pass_through ?? "deny",
    confirm: false,
    ...packLimits(p),
    source: p?.pass_through !== undefined ? "policy" : "fallback",
  };
}

/** The pack's children at once per server: policy.json `limits.concurrency`, else 8. */
export function packConcurrency(pack: LoadedPack): number {
  return pack.policy?.limits?.concurrency ?? DEFAULT_CONCURRENCY;
}

/** The pack-wide limits: policy.json `limits`, else 60000 ms, 1 MiB and 900 s. */
function packLimits(policy: PolicyDocument | null): Required<Omit<PolicyLimits, "concurrency">> {
  return {
    timeout_ms: policy?.limits?.timeout_ms ?? DEFAULT_TIMEOUT_MS,
    max_output_bytes: policy?.limits?.max_output_bytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    approval_ttl_s: policy?.limits?.approval_ttl_s ?? DEFAULT_APPROVAL_TTL_S,
  };
}
