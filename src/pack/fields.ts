// Checkers for the structured surface fields shared by surface.json and a carried meta (§3.2, §3.3, §3.5).

import { createHash } from "node:crypto";
import { IssueSink, index, isObject, prop, show } from "./issues.js";
import { parseArgvToken } from "./placeholders.js";
import type {
  AdapterKind,
  BindingHub,
  BindingMode,
  HarnessBinding,
  HarnessOpenApiRef,
  HarnessPassThrough,
  HarnessWrapTarget,
  Plane,
  Transport,
} from "./types.js";

export const PACK_ID = /^[a-z0-9][a-z0-9._-]*$/;
export const VERB_KEY = /^[a-z0-9][a-z0-9_-]*(\.[a-z0-9][a-z0-9_-]*)*$/;
export const ADAPTER_KINDS: readonly AdapterKind[] = ["composite", "wrap", "openapi", "sense_only"];
export const PLANES: readonly Plane[] = ["runtime", "control"];
export const TRANSPORTS: readonly Transport[] = ["cli", "json_exec", "mcp"];
const BINDING_MODES: readonly BindingMode[] = ["user", "mothership", "local", "public", "mock"];
const BINDING_HUBS: readonly BindingHub[] = ["keyring", "local-credential", "public", "none"];

export function isPackId(v: unknown): v is string {
  return typeof v === "string" && v.length >= 1 && v.length <= 128 && PACK_ID.test(v);
}

/** `<pack>_<verb>` with every character outside [A-Za-z0-9_-] as `_`: the tool name before any cut. */
export function uncutToolName(packId: string, verb: string): string {
  return `${packId}_${verb}`.replace(/[^A-Za-z0-9_-]/g, "_");
}

/** The longest MCP tool name (§8). */
export const MAX_TOOL_NAME = 64;

/**
 * A verb's MCP tool name (§8): `<pack>_<verb>`, every character outside [A-Za-z0-9_-] as `_`, at most 64 characters.
 * A longer one keeps its first 55 and ends `_` and 8 hex digits of its SHA-256: two long verbs that differ only
 * past the cut (an API's `post.projects.project.issues.number.comments.reactions` and `….attachments`) keep
 * distinct names, where a plain cut would make them collide and the server refuse (or leave out) the pack.
 */
export function toolName(packId: string, verb: string): string {
  const name = uncutToolName(packId, verb);
  if (name.length <= MAX_TOOL_NAME) return name;
  return `${name.slice(0, MAX_TOOL_NAME - 9)}_${shortHash(name)}`;
}

/** 8 hex digits of a text's SHA-256: what ends a name cut to fit, so that names differing past the cut stay distinct. */
export function shortHash(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex").slice(0, 8);
}

/** The longest verb key (§3). */
export const MAX_VERB_KEY = 128;

export function isVerbKey(v: string): boolean {
  return v.length <= MAX_VERB_KEY && VERB_KEY.test(v);
}

function oneOf<T extends string>(values: readonly T[], v: unknown): v is T {
  return typeof v === "string" && (values as readonly string[]).includes(v);
}

/** An enum value or an invalid_meta error naming the allowed values. */
export function checkEnum<T extends string>(values: readonly T[], v: unknown, path: string, sink: IssueSink): T | undefined {
  if (oneOf(values, v)) return v;
  sink.error("invalid_meta", path, `${path} must be one of ${values.join(", ")}, got ${show(v)}`);
  return undefined;
}

function boundedString(v: unknown, path: string, sink: IssueSink): string | undefined {
  if (typeof v === "string" && v.length >= 1 && v.length <= 128) return v;
  sink.error("invalid_meta", path, `${path} must be a string of 1 to 128 characters, got ${show(v)}`);
  return undefined;
}

function objectOf(v: unknown, path: string, what: string, sink: IssueSink): Record<string, unknown> | undefined {
  if (isObject(v)) return v;
  sink.error("invalid_meta", path, `${path} must be ${what}, got ${show(v)}`);
  return undefined;
}

/** Unknown fields of a strict object: errors with the given code. */
function strictFields(o: Record<string, unknown>, known: readonly string[], path: string, code: "invalid_meta" | "binding", sink: IssueSink): void {
  for (const k of Object.keys(o)) {
    if (!known.includes(k)) sink.error(code, prop(path, k), `unknown field ${JSON.stringify(k)} in ${path}`);
  }
}

export function checkUrl(v: unknown, path: string, sink: IssueSink): string | undefined {
  if (typeof v === "string" && URL.canParse(v)) return v;
  sink.error("invalid_meta", path, `${path} must be an absolute URL, got ${show(v)}`);
  return undefined;
}

export function checkTransports(v: unknown, path: string, sink: IssueSink): Transport[] | undefined {
  if (!Array.isArray(v)) {
    sink.error("invalid_meta", path, `${path} must be an array of ${TRANSPORTS.join(", ")}, got ${show(v)}`);
    return undefined;
  }
  const start = sink.issues.length;
  if (v.length > 4) sink.error("invalid_meta", path, `${path} has ${v.length} entries; at most 4 are allowed`);
  const seen = new Set<string>();
  v.forEach((t, i) => {
    if (!oneOf(TRANSPORTS, t)) sink.error("invalid_meta", index(path, i), `a transport must be one of ${TRANSPORTS.join(", ")}, got ${show(t)}`);
    else if (seen.has(t)) sink.error("invalid_meta", index(path, i), `transport ${JSON.stringify(t)} is listed twice`);
    else seen.add(t);
  });
  return sink.hasErrorsSince(start) ? undefined : (v as Transport[]);
}

/** Binding (§3.3): unknown fields fail with code `binding`. */
export function checkBinding(v: unknown, path: string, sink: IssueSink): HarnessBinding | undefined {
  const o = objectOf(v, path, "an object {mode, hub, family, connect_provider_id}", sink);
  if (o === undefined) return undefined;
  const start = sink.issues.length;
  strictFields(o, ["mode", "hub", "family", "connect_provider_id"], path, "binding", sink);
  const out: HarnessBinding = {};
  if (o.mode !== undefined) {
    const m = checkEnum(BINDING_MODES, o.mode, `${path}.mode`, sink);
    if (m) out.mode = m;
  }
  if (o.hub !== undefined) {
    const h = checkEnum(BINDING_HUBS, o.hub, `${path}.hub`, sink);
    if (h) out.hub = h;
  }
  for (const f of ["family", "connect_provider_id"] as const) {
    if (o[f] !== undefined) {
      const s = boundedString(o[f], `${path}.${f}`, sink);
      if (s !== undefined) out[f] = s;
    }
  }
  return sink.hasErrorsSince(start) ? undefined : out;
}

/** wrap (§3.2). A missing `bin` is left to the caller, which reports it with the §3.7 message. */
export function checkWrap(v: unknown, path: string, sink: IssueSink): Partial<HarnessWrapTarget> | undefined {
  const o = objectOf(v, path, "an object {bin, argv_template, agent_env}", sink);
  if (o === undefined) return undefined;
  const start = sink.issues.length;
  strictFields(o, ["bin", "argv_template", "agent_env"], path, "invalid_meta", sink);
  const out: Partial<HarnessWrapTarget> = {};
  if (o.bin !== undefined) {
    const b = boundedString(o.bin, `${path}.bin`, sink);
    if (b !== undefined) out.bin = b;
  }
  if (o.argv_template !== undefined) {
    const at = `${path}.argv_template`;
    const t = o.argv_template;
    if (!Array.isArray(t)) sink.error("invalid_meta", at, `${at} must be an array of strings, got ${show(t)}`);
    else {
      if (t.length > 64) sink.error("invalid_meta", at, `${at} has ${t.length} entries; at most 64 are allowed`);
      t.forEach((tok, i) => {
        const p = index(at, i);
        if (typeof tok !== "string") return sink.error("invalid_meta", p, `argv_template tokens must be strings, got ${show(tok)}`);
        const parsed = parseArgvToken(tok);
        if (parsed.kind === "invalid") sink.error("invalid_meta", p, parsed.reason);
        else if (parsed.kind === "flag" && parsed.name === "verb") sink.error("invalid_meta", p, "{{verb}} expands to several tokens and must be a whole token");
      });
      out.argv_template = t as string[];
    }
  }
  if (o.agent_env !== undefined) {
    const ap = `${path}.agent_env`;
    const env = objectOf(o.agent_env, ap, "an object of string values", sink);
    if (env !== undefined) {
      for (const [k, val] of Object.entries(env)) {
        if (typeof val !== "string") sink.error("invalid_meta", prop(ap, k), `agent_env values must be strings, got ${show(val)}`);
      }
      out.agent_env = env as Record<string, string>;
    }
  }
  return sink.hasErrorsSince(start) ? undefined : out;
}

export function checkOpenApi(v: unknown, path: string, sink: IssueSink): HarnessOpenApiRef | undefined {
  const o = objectOf(v, path, "an object {url} or {path}", sink);
  if (o === undefined) return undefined;
  const start = sink.issues.length;
  strictFields(o, ["url", "path"], path, "invalid_meta", sink);
  const out: HarnessOpenApiRef = {};
  if (o.url === undefined && o.path === undefined) sink.error("invalid_meta", path, `${path} needs url or path`);
  if (o.url !== undefined) {
    const u = checkUrl(o.url, `${path}.url`, sink);
    if (u !== undefined) out.url = u;
  }
  if (o.path !== undefined) {
    const p = o.path;
    if (typeof p !== "string" || p === "") sink.error("invalid_meta", `${path}.path`, `${path}.path must be a non-empty string, got ${show(p)}`);
    else if (p.startsWith("/") || /^[A-Za-z]:[\\/]/.test(p)) sink.error("invalid_meta", `${path}.path`, `${path}.path must be relative to the pack root`);
    else out.path = p;
  }
  return sink.hasErrorsSince(start) ? undefined : out;
}

export function checkPassThrough(v: unknown, path: string, sink: IssueSink): HarnessPassThrough | undefined {
  const o = objectOf(v, path, "an object {allowedSubcommands, maxArgv}", sink);
  if (o === undefined) return undefined;
  const start = sink.issues.length;
  strictFields(o, ["allowedSubcommands", "maxArgv"], path, "invalid_meta", sink);
  const subs = o.allowedSubcommands;
  const sp = `${path}.allowedSubcommands`;
  if (!Array.isArray(subs) || subs.length === 0) sink.error("invalid_meta", sp, `${sp} must be a non-empty array of strings, got ${show(subs)}`);
  else {
    subs.forEach((s, i) => {
      if (typeof s !== "string" || s === "") sink.error("invalid_meta", index(sp, i), `a subcommand must be a non-empty string, got ${show(s)}`);
    });
  }
  const max = o.maxArgv;
  if (typeof max !== "number" || !Number.isInteger(max) || max <= 0) {
    sink.error("invalid_meta", `${path}.maxArgv`, `${path}.maxArgv must be an integer greater than 0, got ${show(max)}`);
  }
  return sink.hasErrorsSince(start) ? undefined : { allowedSubcommands: subs as string[], maxArgv: max as number };
}

/** The argv template a wrap verb runs after the program: its cli's words after the first, else wrap.argv_template, else `{{verb}}` (§6.1). */
export function wrapTemplate(wrap: { argv_template?: string[] } | undefined, verb: { cli?: string[] }): string[] {
  return verb.cli?.slice(1) ?? wrap?.argv_template ?? ["{{verb}}"];
}
