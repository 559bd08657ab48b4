// Packs a person trusted (`hcp trust`): over `hcp run` the caller may have written the pack (its program, its
// policy, the credential family it names), and whatever it runs runs as the person (it could read their credential
// file or write trust records), so hcp run runs a pack, whatever its binding, only when a person trusted exactly
// it: its real folder, the SHA-256 of its surface.json, policy.json and OpenAPI document as loaded (local or
// fetched), the digest of everything in its folder (pack-tree.ts: the scripts it runs and every file they read
// there) and of each program it names outside the folder (pack-programs.ts), all as they were shown. Records are
// kept by trust-store.ts.

import { realpathSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { policyClasses } from "../../pack/policy.js";
import type { LoadedPack } from "../../pack/types.js";
import { shellWord } from "../../shell-word.js";
import { escapeForPerson } from "../approval/show.js";
import { bindingLoadsCredentials } from "../secrets/credentials.js";
import { RuntimeError } from "../errors.js";
import { boundDocument, withheldDocument } from "../openapi/packs.js";
import { removeCopies } from "./pack-copy.js";
import { cwdLeavingCopy, linkLeavingCopy } from "./pack-links.js";
import { selfPaths } from "./pack-self-paths.js";
import { outsideDigests, programBindings, type ProgramBinding } from "./pack-programs.js";
import { packTree, treeChanges, TreeError, type PackTree } from "./pack-tree.js";
import { packFilesChanged, realRootOf } from "./trusted-files.js";
import { readTrustRecord, removeTrustRecord, writeTrustRecord, type TrustRecord } from "./trust-store.js";

export type { TrustRecord } from "./trust-store.js";

/** What trust binds beyond the loaded files, read once: shown to the person, recorded, compared. */
export interface PackBinding {
  readonly tree: PackTree;
  readonly programs: readonly ProgramBinding[];
}

/** Asks a person whether to trust a pack, shown `text` (what it is and does); true trusts it. */
export type TrustAsker = (text: string) => Promise<boolean>;

/** Whether the pack's binding would load credentials (hub local-credential or keyring, not mode mock): what a person is told it reads. */
export function loadsCredentials(pack: LoadedPack): boolean {
  return bindingLoadsCredentials(pack.surface?.binding);
}

/** The digests of the pack as loaded (never re-read: what is checked is what runs); undefined when it cannot be trusted. */
function digestsOf(pack: LoadedPack): Pick<TrustRecord, "surface_sha256" | "policy_sha256" | "document_sha256"> | undefined {
  const surface = pack.sha256?.surface;
  if (surface === undefined || surface === null || pack.surface === null) return undefined;
  let document: string | null = null;
  // A fetched document too: its first server is where the credentials go, and whoever serves it can change it.
  if (pack.surface.kind === "openapi" && pack.surface.openapi !== undefined) {
    const bound = boundDocument(pack);
    if (bound === undefined) return undefined;
    document = bound.sha256;
  }
  return { surface_sha256: surface, policy_sha256: pack.sha256?.policy ?? null, document_sha256: document };
}

/**
 * What trust binds of the pack (its real folder) now; a sentence saying why when it cannot be bound. `named`: the paths
 * a person gave for the folder (givenPackFolder), which its files may not name, as they may not name its real path.
 */
export function bindingOf(pack: LoadedPack, named: readonly string[] = []): PackBinding | string {
  if (pack.surface === null) return "it did not load";
  const root = realRootOf(pack);
  try {
    const tree = packTree(root, selfPaths(root, named));
    // The folder read now holds the surface.json and policy.json loaded (else one changed in between).
    const loaded = (name: string, sha: string | null | undefined) => {
      const entry = Object.hasOwn(tree.entries, name) ? tree.entries[name] : undefined;
      return sha === null ? entry === undefined : entry !== undefined && entry.slice(2) === sha;
    };
    if (!loaded("surface.json", pack.sha256?.surface) || !loaded("policy.json", pack.sha256?.policy)) return "its surface.json or policy.json on disk is not the text loaded (it changed while it was read, or it is not valid UTF-8)";
    // hcp run runs it from a copy (pack-copy.ts): each link must lead to the same place from there.
    const link = linkLeavingCopy(root, tree.entries) ?? cwdLeavingCopy(root, pack.policy?.cwd);
    if (link !== undefined) return escapeForPerson(link);
    return { tree, programs: programBindings(pack.surface, root) };
  } catch (err) {
    // It names a file of the folder, whose name the folder's writer chose: a person may be shown it.
    if (err instanceof TreeError) return escapeForPerson(err.message);
    throw err;
  }
}

/**
 * A pack path (its folder, or its surface.json) with the links in its folder's path resolved: load a pack from it so
 * that its root, against which its relative programs and files are found, is the real folder a person trusted.
 * A path that does not exist stays as it is, made absolute (loading it reports that).
 */
export function realPackPath(path: string): string {
  const given = resolve(path);
  try {
    return statSync(given).isFile() ? join(realpathSync(dirname(given)), basename(given)) : realpathSync(given);
  } catch {
    return given;
  }
}

/** The pack folder a pack path names as given, its links not resolved (absolute): the folder, or that of its surface.json. */
export function givenPackFolder(path: string): string {
  const given = resolve(path);
  try {
    return statSync(given).isFile() ? dirname(given) : given;
  } catch {
    return given;
  }
}

/** Why the pack is not trusted as loaded (a sentence), or undefined when it is: its real folder is recorded with every digest equal. */
export function untrustedBecause(pack: LoadedPack, stateDir: string): string | undefined {
  return verdict(pack, stateDir).why;
}

/** The verdict on the pack as loaded, and what it binds now (to show and record when a person trusts it). */
function verdict(pack: LoadedPack, stateDir: string, givenAs: readonly string[] = []): { why?: string; binding?: PackBinding; record?: TrustRecord } {
  const real = realRootOf(pack);
  // Loaded through a link, its relative program and files would be found through the link, which can change after this check.
  if (real !== pack.root) return { why: escapeForPerson(`it was loaded as ${pack.root}, a symbolic link to ${real}; run it by its real path`) };
  const binding = bindingOf(pack, givenAs);
  if (typeof binding === "string") return { why: `what it runs cannot be bound: ${binding}` };
  const record = readTrustRecord(stateDir, real);
  if (record === undefined) return { why: "a person has never trusted it", binding };
  const now = digestsOf(pack);
  if (now === undefined) return { why: "what it runs cannot be read to compare with what a person trusted", binding, record };
  const named = [...packFilesChanged(now, record), ...(now.document_sha256 !== record.document_sha256 ? ["its OpenAPI document"] : [])];
  // The folder's own names, but for the files named above (the loaded text is compared; the folder's digest catches a change after loading).
  const quiet = new Set(["surface.json", "policy.json", documentPath(pack, real)]);
  const paths = binding.tree.sha256 === record.tree_sha256 ? [] : treeChanges(record.files, binding.tree.entries).filter((p) => !quiet.has(p));
  const programs = outsideDigests(binding.programs);
  const moved = [...new Set([...Object.keys(programs), ...Object.keys(record.programs)])].filter((p) => programs[p] !== record.programs[p]);
  // Names the folder's writer chose, shown to a person at the trust prompt: escaped.
  const changed = [...named, ...shortList(paths).map(escapeForPerson), ...moved.map((p) => `the program ${escapeForPerson(p)}`)];
  if (changed.length === 0 && binding.tree.sha256 !== record.tree_sha256) changed.push("its folder");
  return changed.length === 0 ? { binding } : { why: `it changed since a person trusted it (${changed.join(", ")})`, binding, record };
}

/** The first few paths, then how many more. */
const shortList = (paths: readonly string[]) => (paths.length <= 3 ? paths : [...paths.slice(0, 3), `${paths.length - 3} more files`]);

/** The local OpenAPI document's path relative to the folder (to not name it twice); "" for none. */
function documentPath(pack: LoadedPack, root: string): string {
  const path = pack.surface?.kind === "openapi" ? pack.surface.openapi?.path : undefined;
  return path === undefined ? "" : relative(root, resolve(root, path));
}

/** hcp run's rule, as its refusals state it. */
const RUN_RULE = "hcp run runs only a pack a person trusted (what it runs runs as that person)";

/** The refusal of a pack that is not trusted: what it is, why, the rule it breaks, and the command a person runs. */
function refusal(pack: LoadedPack, why: string, rule = RUN_RULE): RuntimeError {
  const binding = pack.surface?.binding;
  const family = binding?.family ?? pack.surface?.id ?? "";
  const root = realRootOf(pack);
  const reads = loadsCredentials(pack) ? ` reads the credentials of family ${escapeForPerson(JSON.stringify(family))} (hub ${binding?.hub}), and` : " would run as you, and";
  return new RuntimeError(
    "pack_untrusted",
    `pack ${escapeForPerson(JSON.stringify(pack.surface?.id ?? ""))} at ${escapeForPerson(root)}${reads} ${why}: ` +
      `${rule}, so nothing was read or run. A person can review and trust it in a terminal with: hcp trust ${escapeForPerson(shellWord(root))}`,
  );
}

/**
 * hcp exec and hcp serve where the operator set HCP_NO_PROMPT: their command line may be the agent's there (an agent
 * allowed them would serve a pack it wrote, whose program is any program), so a pack is served only as a person trusted
 * it, as hcp run runs it. Throws `pack_untrusted` otherwise.
 */
export function requireTrustedToServe(pack: LoadedPack, stateDir: string): void {
  const why = untrustedBecause(pack, stateDir);
  if (why !== undefined) {
    throw refusal(pack, why, "where HCP_NO_PROMPT is set, the command line may be the agent's, and hcp exec and hcp serve serve only packs a person trusted, as hcp run runs only those");
  }
}

/**
 * hcp run with nobody to ask, and hcp describe: throws `pack_untrusted` when the loader, told `trusted-only`, did not
 * fetch the pack's document (withheldDocument), as these commands must say it (exit 4).
 */
export function refuseWithheldDocument(pack: LoadedPack): void {
  const why = withheldDocument(pack);
  if (why !== undefined) throw refusal(pack, `${why}; its OpenAPI document was not fetched`);
}

/**
 * Throws `pack_untrusted` unless a person trusted the pack as loaded, whatever its binding. With `ask`, a pack
 * that is not trusted is first shown to a person (`review` is what they see of what it binds now, given the record of the
 * person's last trust of the folder, if any) and, on yes,
 * trusted as shown. Returns what it binds as trusted: its folder's digest (what hcp run's copy of it must be) and where
 * each program was found then. `named`: the paths the pack folder was given as (bindingOf).
 */
export async function requireTrust(
  pack: LoadedPack,
  stateDir: string,
  ask?: { asker: TrustAsker; review: (binding: PackBinding, previous: TrustRecord | undefined) => string },
  named: readonly string[] = [],
): Promise<PackBinding> {
  const { why, binding, record } = verdict(pack, stateDir, named);
  // No reason against it: the folder read now is the one recorded.
  if (why === undefined && binding !== undefined) return binding;
  if (ask === undefined || binding === undefined) throw refusal(pack, why ?? "it cannot be bound");
  if (!(await ask.asker(`This pack is not trusted: ${why}.\n${ask.review(binding, record)}`))) throw refusal(pack, `${why}; the person at the terminal did not trust it`);
  trustPack(pack, stateDir, binding);
  return binding;
}

/**
 * Records a person's trust in the pack as loaded and `binding` as they were shown it (replacing an older record of
 * its folder). Throws when it cannot be trusted.
 */
export function trustPack(pack: LoadedPack, stateDir: string, binding: PackBinding | string = bindingOf(pack)): TrustRecord {
  const digests = digestsOf(pack);
  if (digests === undefined || pack.surface === null) {
    throw new RuntimeError("invalid_pack", `pack at ${pack.root} cannot be trusted: its files did not load (see hcp validate ${shellWord(pack.root)})`);
  }
  const root = realRootOf(pack);
  if (root !== pack.root) throw new RuntimeError("invalid_pack", `pack at ${pack.root} cannot be trusted through a symbolic link: trust it by its real path, ${root}`);
  if (typeof binding === "string") throw new RuntimeError("invalid_pack", `pack at ${root} cannot be trusted: ${binding}`);
  const record: TrustRecord = {
    root,
    id: pack.surface.id,
    ...digests,
    tree_sha256: binding.tree.sha256,
    files: binding.tree.entries,
    programs: outsideDigests(binding.programs),
    verbs: policyClasses(pack),
    trusted_at: new Date().toISOString(),
  };
  writeTrustRecord(stateDir, record);
  return record;
}

/** The record of the last trust a person gave the pack's folder, if any: what the review compares its policy with. */
export function lastTrust(pack: LoadedPack, stateDir: string): TrustRecord | undefined {
  return readTrustRecord(stateDir, realRootOf(pack));
}

/** Removes the record of the folder at `root` (a real path), then hcp run's copies of it; false when there was no record. */
export function revokeTrust(root: string, stateDir: string): boolean {
  const had = removeTrustRecord(stateDir, root);
  removeCopies(stateDir, root);
  return had;
}
