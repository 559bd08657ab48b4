// AppConfig.Surface: who owns the global flags, --version, completion and the manifest endpoint (§f), with Go's panic texts as typed errors.

import { MANIFEST_ENDPOINT } from "../manifest/types.js";
import type { ResolutionConfig } from "./config.js";
import { SurfaceError } from "./errors.js";
import { ADVANCED_IDS, BASE_IDS, globalFlagDef, toFlagDef, type FlagDef, type GlobalId } from "./flags.js";
import type { Manifest } from "../manifest/types.js";

export type SurfaceMode = "" | "rungrad" | "host" | "disabled";
export type ManifestEndpointMode = "" | "rungrad" | "disabled" | "renamed" | "host-rendered";

/** A host's name for a framework global flag; empty usage falls back to the framework's. */
export interface GlobalFlagBinding {
  name: string;
  shorthand?: string;
  usage?: string;
  hidden?: boolean;
}

export interface GlobalFlagBindings {
  /** By identity: json, dry-run, no-prompt, quiet, config, advanced ids, profile, auth-file. */
  flags?: Partial<Record<string, GlobalFlagBinding>>;
  /** By service name. */
  services?: Record<string, GlobalFlagBinding>;
}

export interface ManifestRenderContext {
  manifest: Manifest;
  commandPath: string;
}

export interface SurfaceConfig {
  globalFlags?: { mode?: SurfaceMode; bindings?: GlobalFlagBindings };
  version?: SurfaceMode;
  completion?: SurfaceMode;
  manifest?: { mode?: ManifestEndpointMode; name?: string; render?: (ctx: ManifestRenderContext) => string | Promise<string> };
}

export interface NormalizedSurface {
  globalFlags: "rungrad" | "host" | "disabled";
  version: "rungrad" | "host" | "disabled";
  completion: "rungrad" | "host" | "disabled";
  endpoint: { mode: "rungrad" | "disabled" | "renamed" | "host-rendered"; name: string; render?: (ctx: ManifestRenderContext) => string | Promise<string> };
}

// A declaration, not an arrow: TypeScript narrows on calls of a declared `never` function.
function fail(msg: string): never {
  throw new SurfaceError(`rungrad: ${msg}`);
}

function mode(m: SurfaceMode | undefined): "rungrad" | "host" | "disabled" {
  if (m === undefined || m === "" || m === "rungrad") return "rungrad";
  if (m === "host" || m === "disabled") return m;
  return fail(`invalid surface mode "${m as string}"`);
}

/** Validates modes and the endpoint configuration; reserved names depend on the completion owner. */
export function normalizeSurface(s: SurfaceConfig = {}): NormalizedSurface {
  const out = {
    globalFlags: mode(s.globalFlags?.mode),
    version: mode(s.version),
    completion: mode(s.completion),
  };
  const m = s.manifest ?? {};
  const name = m.name ?? "";
  const render = m.render;
  switch (m.mode ?? "") {
    case "":
    case "rungrad":
      if (name || render) fail("rungrad-owned manifest endpoint does not accept Name or Render");
      return { ...out, endpoint: { mode: "rungrad", name: MANIFEST_ENDPOINT } };
    case "disabled":
      if (name || render) fail("disabled manifest endpoint does not accept Name or Render");
      return { ...out, endpoint: { mode: "disabled", name: "" } };
    case "renamed":
      if (!name) fail("renamed manifest endpoint requires Name");
      if (render) fail("renamed manifest endpoint does not accept Render");
      if (/[ \t\r\n]/.test(name)) fail(`renamed manifest endpoint "${name}" must be a single command token`);
      if (name === MANIFEST_ENDPOINT) fail(`renamed manifest endpoint cannot use default name "${MANIFEST_ENDPOINT}"`);
      if (name === "help" || (name === "completion" && out.completion !== "host")) {
        fail(`renamed manifest endpoint "${name}" collides with a reserved command name`);
      }
      return { ...out, endpoint: { mode: "renamed", name } };
    case "host-rendered":
      if (name) fail("host-rendered manifest endpoint does not accept Name");
      if (!render) fail("host-rendered manifest endpoint requires Render");
      return { ...out, endpoint: { mode: "host-rendered", name: MANIFEST_ENDPOINT, render } };
    default:
      return fail(`invalid manifest endpoint mode "${m.mode as string}"`);
  }
}

/** Command names a product may not register. */
export function reservedNames(s: NormalizedSurface): Set<string> {
  const out = new Set(["help"]);
  if (s.endpoint.mode !== "disabled") out.add(s.endpoint.name);
  if (s.completion !== "host") out.add("completion");
  return out;
}

/** The active global identities: base, advanced, resolution (profile/auth-file), one per flagged service. */
function activeIds(advanced: boolean, resolution: ResolutionConfig | undefined): { ids: GlobalId[]; services: string[] } {
  const ids: GlobalId[] = [...BASE_IDS];
  if (advanced) ids.push(...ADVANCED_IDS);
  if (resolution?.profile) ids.push("profile");
  if (resolution?.authFile) ids.push("auth-file");
  const services = (resolution?.services ?? []).filter((s) => s.flag).map((s) => s.name);
  return { ids, services };
}

function serviceDef(resolution: ResolutionConfig, service: string, binding?: GlobalFlagBinding): FlagDef {
  const s = resolution.services!.find((x) => x.name === service)!;
  return toFlagDef(
    {
      name: binding?.name ?? s.flag!,
      shorthand: binding?.shorthand ?? "",
      usage: binding?.usage || s.usage || "",
      type: "string",
      default: s.default ?? "",
      hidden: binding?.hidden ?? false,
    },
    `service:${service}`,
  );
}

/** The root's persistent flags for the surface's global-flag mode. `taken` are names already on the flag set. */
export function globalFlags(
  s: NormalizedSurface,
  advanced: boolean,
  resolution: ResolutionConfig | undefined,
  bindings: GlobalFlagBindings | undefined,
  taken: readonly string[],
): FlagDef[] {
  if (s.globalFlags === "disabled") return [];
  const { ids, services } = activeIds(advanced, resolution);
  if (s.globalFlags === "rungrad") {
    return [...ids.map((id) => globalFlagDef(id)), ...services.map((name) => serviceDef(resolution!, name))];
  }
  const byId = bindings?.flags ?? {};
  const bySvc = bindings?.services ?? {};
  for (const key of Object.keys(byId)) if (!(ids as string[]).includes(key)) fail(`host binding "${key}" provided for a feature that is not enabled`);
  const known = new Set((resolution?.services ?? []).map((x) => x.name));
  for (const key of Object.keys(bySvc)) {
    if (!known.has(key)) fail(`unknown service binding key "${key}"`);
    if (!services.includes(key)) fail(`host binding "${key}" provided for a feature that is not enabled`);
  }
  const defs: FlagDef[] = [];
  // Each binding key with the FlagDef it yields: a global identity's, or a service's.
  type Entry = [key: string, binding: GlobalFlagBinding | undefined, def: (b: GlobalFlagBinding, short: string) => FlagDef];
  const entries: Entry[] = [
    ...ids.map((id): Entry => [id, byId[id], (b, short) => globalFlagDef(id, b.name, b.usage, short, b.hidden ?? false)]),
    ...services.map((name): Entry => [name, bySvc[name], (b) => serviceDef(resolution!, name, b)]),
  ];
  const longNames = new Set(taken);
  for (const [id, b, toDef] of entries) {
    if (!b || (!b.name && !b.hidden)) fail(`missing host binding for global flag "${id}"`);
    if (!b.name) fail(`hidden host binding for "${id}" requires a name`);
    const short = b.shorthand ?? "";
    if (short && !/^[\x21-\x7e]$/.test(short)) fail(`host binding shorthand "${short}" must be one ASCII character`);
    if (short && (id === "json" || id === "jq" || id === "template")) fail(`global flag "${id}" cannot define a shorthand`);
    const clash = defs.find((d) => d.name === b.name);
    if (clash) fail(`host binding "${b.name}" duplicates global flag "${clash.id}"`);
    const shortClash = short ? defs.find((d) => d.shorthand === short) : undefined;
    if (shortClash) fail(`host binding shorthand "${short}" duplicates global flag "${shortClash.id}"`);
    if (longNames.has(b.name)) fail(`host binding "${b.name}" collides with an existing flag on the flag set`);
    defs.push(toDef(b, short));
  }
  const allLong = new Set([...taken, ...defs.map((d) => d.name)]);
  for (const d of defs) if (d.shorthand && allLong.has(d.shorthand)) fail(`host binding shorthand "${d.shorthand}" collides with a long flag name`);
  return defs;
}
