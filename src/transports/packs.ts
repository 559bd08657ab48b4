// Which packs a transport may serve: loaded without errors, allowing that transport and plane; their verbs and Skill text.

import { existsSync, realpathSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { readRegularFile } from "../read-regular.js";
import { formatIssue } from "../pack/issues.js";
import { PACK_FILE_MAX_BYTES, loadPack, loadPacks, packFolders } from "../pack/load.js";
import { effectivePolicy, packConcurrency } from "../pack/policy.js";
import type { EffectivePolicy, LoadedPack, Surface, SurfaceVerb, Transport } from "../pack/types.js";
import type { Gate } from "../runtime/approval/gate.js";
import { stateDirOf } from "../runtime/approval/state.js";
import { RuntimeError } from "../runtime/errors.js";
import { AGENT_FOLDERS, agentFolderHolding, agentFoldersOf, inAgentFolder, namedAgentFolders, namedBy } from "../runtime/agent-folders.js";
import { Limiter } from "../runtime/limiter.js";
import { loadOpenApiDocuments, type DocumentFetch } from "../runtime/openapi/packs.js";
import { TransportError } from "./errors.js";

export interface ServeOptions {
  /** Whether write verbs may run (`--allow-write`). */
  readonly allowWrite?: boolean;
  /** Serve `plane: control` packs too (`--control-plane`). */
  readonly controlPlane?: boolean;
  /** Refuse to start when a pack found in a folder of packs does not load, or (MCP) its verbs cannot be tools (`--strict`), instead of leaving it out. */
  readonly strict?: boolean;
  /** Approvals and the audit log (`--approver`, `--audit`); by default from the environment. */
  readonly gate?: Gate;
  /** The absolute folder the verbs of a pack whose policy.json sets no `cwd` run in (`--cwd`); the runtime's own by default. */
  readonly cwd?: string;
}

/** A pack that loaded without errors. */
export interface ServedPack extends LoadedPack {
  surface: Surface;
}

/**
 * Refuses a pack this transport may not serve: one with validation errors, one whose `transports`
 * leave this transport out, a control-plane pack unless asked for (`transport` null: any transport).
 */
export function servable(pack: LoadedPack, transport: Transport | null, opts: ServeOptions = {}): ServedPack {
  const surface = pack.surface;
  if (!pack.ok || surface === null) {
    const first = pack.issues.find((i) => i.severity === "error");
    throw new RuntimeError(
      "invalid_pack",
      `pack at ${pack.root} has validation errors${first ? `: ${formatIssue(first)}` : ""} (see hcp validate ${pack.root})`,
    );
  }
  const id = JSON.stringify(surface.id);
  if (transport !== null && surface.transports !== undefined && !surface.transports.includes(transport)) {
    throw new TransportError(
      "transport_not_allowed",
      `pack ${id} does not allow the ${transport} transport (its surface.json transports: ${surface.transports.join(", ") || "none"})`,
    );
  }
  if (surface.plane === "control" && !opts.controlPlane) {
    throw new TransportError("plane_not_allowed", `pack ${id} is a control-plane pack; it is served only with --control-plane`);
  }
  return pack as ServedPack;
}

/**
 * The one pack at a path (its folder or its surface.json), for the commands that take one pack (run, describe, meta,
 * skill). A path that does not exist is `unknown_pack`; a folder of packs is refused naming the packs in it, not
 * reported as a pack without a surface.json.
 */
export function loadOnePack(path: string): LoadedPack {
  if (!existsSync(path)) throw new TransportError("unknown_pack", `no pack at ${path}: it does not exist (a pack is a folder with a surface.json)`);
  const pack = loadPack(path);
  if (pack.surface !== null || existsSync(pack.surfacePath)) return pack;
  const packs = packFolders(resolve(path));
  if (packs.length > 0) {
    const names = packs.slice(0, 10);
    throw new TransportError("usage", `${path} is a folder of packs; give one of them: ${names.join(", ")}${packs.length > names.length ? `, … (${packs.length} in all)` : ""}`);
  }
  return pack;
}

export interface Served {
  packs: ServedPack[];
  /** Packs found in a folder of packs that this transport may not serve, with the reason. */
  skipped: { root: string; reason: string; pack: LoadedPack }[];
}

/**
 * What a transport asks of each pack beyond servable, in the order the packs are loaded (the MCP server: that its
 * verbs can be tools, alone and beside the packs accepted before it, tools.ts toolCheck). It throws why not.
 */
export type PackCheck = (pack: ServedPack) => void;

/**
 * Loads the packs of PACK|DIR paths for a transport. A pack named directly that it may not serve is
 * an error; one found in a folder of packs that does not load, whose `transports` or plane rule it
 * out, or that fails `check`, is skipped (and reported), so that one pack does not stop its siblings; `strict` makes
 * an invalid one, or one failing `check`, an error. A folder of packs of which none can be served is an error.
 * The OpenAPI documents of openapi packs are loaded (and checked) too, one by `openapi.url` only as `allowed` permits.
 */
export async function loadServed(paths: readonly string[], transport: Transport | null, opts: ServeOptions, allowed: DocumentFetch, check?: PackCheck): Promise<Served> {
  if (paths.length === 0) throw new TransportError("usage", "give at least one pack folder or folder of packs");
  // A mistyped path is not found, as for the commands that take one pack; not a pack "with validation errors".
  const missing = paths.find((p) => !existsSync(p));
  if (missing !== undefined) {
    throw new TransportError("unknown_pack", `no pack at ${missing}: it does not exist (a pack is a folder with a surface.json; a folder of packs holds such folders)`);
  }
  const named = new Set(paths.map((p) => resolve(p)));
  const served: Served = { packs: [], skipped: [] };
  const packs = loadPacks(paths);
  await loadOpenApiDocuments(packs, allowed, opts.gate?.stateDir ?? stateDirOf(process.env));
  for (const pack of packs) {
    try {
      const accepted = servable(pack, transport, opts);
      check?.(accepted);
      served.packs.push(accepted);
    } catch (err) {
      const restricted = err instanceof TransportError && (err.code === "transport_not_allowed" || err.code === "plane_not_allowed");
      if (named.has(pack.root) || named.has(pack.surfacePath) || (!restricted && opts.strict)) throw err;
      served.skipped.push({ root: pack.root, reason: err instanceof Error ? err.message : String(err), pack });
    }
  }
  if (served.packs.length === 0 && served.skipped.length > 0) {
    throw new TransportError("usage", `no pack can be served: ${served.skipped.map((s) => s.reason).join("; ")}`);
  }
  return served;
}

const slots = new WeakMap<ServedPack, Limiter>();

/** The bound on a pack's children (an openapi pack's HTTP requests) at once (policy.json `limits.concurrency`, default 8), one per loaded pack: per server. */
export function slotsOf(pack: ServedPack): Limiter {
  let limiter = slots.get(pack);
  if (limiter === undefined) slots.set(pack, (limiter = new Limiter(packConcurrency(pack))));
  return limiter;
}

/** The pack with this id, or `unknown_pack`. */
export function findPack(packs: readonly ServedPack[], id: string): ServedPack {
  const pack = packs.find((p) => p.surface.id === id);
  if (pack === undefined) {
    const known = packs.map((p) => JSON.stringify(p.surface.id)).join(", ");
    throw new TransportError("unknown_pack", `no pack ${JSON.stringify(id)} is loaded (loaded: ${known || "none"})`);
  }
  return pack;
}

export interface VerbEntry {
  key: string;
  verb: SurfaceVerb;
  policy: EffectivePolicy;
}

/** Every verb of a pack with its effective policy, in surface order; `listable` drops the denied ones. */
export function verbsOf(pack: ServedPack, listable = false): VerbEntry[] {
  const out: VerbEntry[] = [];
  for (const [key, verb] of Object.entries(pack.surface.verbs)) {
    const policy = effectivePolicy(pack, key);
    if (listable && policy.policy === "deny") continue;
    out.push({ key, verb, policy });
  }
  return out;
}

/** Whether a verb's policy lets it run under these options (confirmation aside). */
export function runnable(policy: EffectivePolicy, opts: ServeOptions): boolean {
  return policy.policy === "read" || (policy.policy === "write" && opts.allowWrite === true);
}

/** The pack's Skill text (§5): HARNESS.md as written, else the inline `harness`; undefined when it has neither. */
export function harnessText(pack: LoadedPack): string | undefined {
  if (pack.harness === null) return undefined;
  if (pack.harness.source === "inline") return pack.harness.body;
  try {
    return readRegularFile(join(pack.root, "HARNESS.md"), PACK_FILE_MAX_BYTES).toString("utf8");
  } catch {
    return pack.harness.body;
  }
}

/** Whether the pack's verbs run programs (a CLI's), which run in a working folder; an API's send requests. */
export const runsPrograms = (pack: ServedPack): boolean => pack.surface.kind === "wrap" || pack.surface.kind === "composite";

/**
 * The CLI packs whose verbs run in the folder hcp was started in, which an MCP client chooses: none sets `cwd` in its
 * policy.json, and no --cwd was given. What hcp mcp-config and hcp serve tell the operator of.
 */
export function inStartFolder(packs: readonly ServedPack[], opts: ServeOptions): ServedPack[] {
  return opts.cwd === undefined ? packs.filter((p) => runsPrograms(p) && p.policy?.cwd === undefined) : [];
}

/**
 * A warning when the audit log lies in a folder the agent works in (agentFoldersOf): the agent could rewrite the record
 * of what ran. A warning, not a refusal: the log is still written, and nothing runs on its word.
 */
export function auditLogWarnings(opts: ServeOptions): string[] {
  const path = opts.gate?.audit?.path;
  if (path === undefined) return [];
  const folder = agentFolderHolding(path, agentFoldersOf(opts.cwd));
  return folder === undefined ? [] : [`the audit log ${resolve(path)} lies in ${JSON.stringify(folder)}, a folder the agent works in (${AGENT_FOLDERS}), where it could rewrite the record of what ran; keep the log where the agent cannot write (--audit FILE)`];
}

/**
 * A warning when this hcp is a package installed in a folder the agent works in (a project's node_modules, as a
 * devDependency run with npx): the agent could rewrite hcp itself, its code or the code cache beside it, and with them
 * every check it makes. `program` is the script started (process.argv[1]).
 */
export function installWarnings(opts: ServeOptions, program = process.argv[1]): string[] {
  if (program === undefined) return [];
  let real: string;
  try {
    real = realpathSync(program);
  } catch {
    return [];
  }
  if (!real.split(sep).includes("node_modules")) return [];
  const folder = agentFolderHolding(real, agentFoldersOf(opts.cwd));
  return folder === undefined ? [] : [`hcp itself is installed at ${real}, in ${JSON.stringify(folder)}, a folder the agent works in (${AGENT_FOLDERS}), where it could rewrite hcp (its code, its code cache) and with it every check; install hcp where the agent cannot write (npm install --global, or a folder of yours)`];
}

/**
 * A warning for each pack whose folder lies in the folder its server's verbs run in by default (`--cwd`, else this
 * process's), the agent's workspace, or in one named (HCP_AGENT_FOLDERS, the MCP client's roots): the agent can rewrite
 * it (policy.json, the programs it runs) while it is served. `where` says what the first folder (given quoted) is to the
 * reader, and that the agent writes there.
 */
export function workspaceWarnings(packs: readonly ServedPack[], opts: ServeOptions, where: (folder: string) => string): string[] {
  const folder = opts.cwd ?? process.cwd();
  const placeOf = (root: string): string | undefined => {
    if (inAgentFolder(folder, root)) return where(JSON.stringify(folder));
    const named = agentFolderHolding(root, namedAgentFolders());
    return named === undefined ? undefined : namedPlace(named);
  };
  return packs.flatMap((p) => {
    const place = placeOf(p.root);
    return place === undefined ? [] : [rewritablePack(p, place)];
  });
}

/** The variables each pack's policy.json passes its verbs from hcp's environment (`env`), and those `env` does not hold. */
export function passedEnv(packs: readonly ServedPack[], env: NodeJS.ProcessEnv = process.env): { pack: ServedPack; names: readonly string[]; unset: readonly string[] }[] {
  return packs.flatMap((pack) => {
    const names = pack.policy?.env ?? [];
    return names.length === 0 ? [] : [{ pack, names, unset: names.filter((n) => env[n] === undefined) }];
  });
}

/**
 * A warning for each pack whose policy.json passes its verbs variables hcp's environment does not hold: they run without
 * them (restic without RESTIC_PASSWORD asks for it on a terminal it has not, and fails), and nothing else said so.
 */
export function unsetEnvWarnings(packs: readonly ServedPack[], env: NodeJS.ProcessEnv = process.env): string[] {
  return passedEnv(packs, env)
    .filter((p) => p.unset.length > 0)
    .map(({ pack, unset }) => `pack ${JSON.stringify(pack.surface.id)}'s policy.json passes its verbs ${unset.join(", ")} from hcp's environment (env), which does not hold ${unset.length === 1 ? "it" : "them"}: its verbs run without ${unset.length === 1 ? "it" : "them"}`);
}

/** A folder HCP_AGENT_FOLDERS or the MCP client's roots name, as a served pack's warning says where it lies. */
export const namedPlace = (folder: string): string => `${JSON.stringify(folder)}, ${namedBy(folder)}, where the agent writes files`;

/** The warning of a served pack that lies in `place`, a folder the agent writes in. */
export const rewritablePack = (pack: ServedPack, place: string): string =>
  `pack ${JSON.stringify(pack.surface.id)} lies in ${place}: it can rewrite the pack (its policy.json, the programs it runs) while you serve it; keep served packs in a folder the agent cannot write`;

/** One line about the Skill: HARNESS.md's description, else the pack name. */
export function harnessSummary(pack: ServedPack): string {
  const d = pack.harness?.frontmatter?.description;
  return typeof d === "string" && d.trim() !== "" ? d.trim() : (pack.surface.name ?? pack.surface.id);
}
