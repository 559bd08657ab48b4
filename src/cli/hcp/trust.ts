// `hcp trust PACK`: a person at a terminal trusts a pack (shown what it is, does and reads, then y/N), so that
// `hcp run` runs it (with the credentials its binding names, if any); `--list` shows the packs trusted and whether each
// still matches, `--revoke PACK` takes a trust away. Trusting refuses without a terminal on stdin and stdout.

import { basename, dirname } from "node:path";
import type { Context } from "../../framework/index.js";
import { loadPack } from "../../pack/load.js";
import { askYesNo } from "../../runtime/approval/approvers.js";
import { escapeForPerson } from "../../runtime/approval/show.js";
import { stateDirOf } from "../../runtime/approval/state.js";
import { RuntimeError } from "../../runtime/errors.js";
import { loadOpenApiDocuments, withheldDocument } from "../../runtime/openapi/packs.js";
import { hasLegacyStore, legacyStoreOf, readTrustRecords } from "../../runtime/trust/trust-store.js";
import { bindingOf, givenPackFolder, lastTrust, realPackPath, revokeTrust, trustPack, untrustedBecause, type TrustRecord } from "../../runtime/trust/trust.js";
import { trustReview } from "../../runtime/trust/trust-review.js";
import { TransportError } from "../../transports/errors.js";
import { loadOnePack, servable } from "../../transports/packs.js";
import { shellWord } from "../../shell-word.js";
import { requirePersonAtTerminal } from "./flags.js";

/**
 * A pack as `hcp run` loads it: by its real folder, its OpenAPI document loaded; one with errors is refused. Its
 * `openapi.url` is fetched: the person at the terminal reviews the document fetched before trusting it.
 */
async function packAt(path: string) {
  const pack = loadOnePack(realPackPath(path));
  await loadOpenApiDocuments([pack], { fetch: "command-line" }, stateDirOf(process.env));
  return servable(pack, null, { controlPlane: true });
}

/** A trusted pack and whether it still matches what was trusted (undefined `why`: it does). */
async function stateOf(record: TrustRecord, stateDir: string): Promise<TrustRecord & { matches: boolean; why?: string }> {
  const pack = loadPack(record.root);
  // The agent can run --list: a pack changed since it was trusted may name another URL, which is not fetched.
  await loadOpenApiDocuments([pack], { fetch: "trusted-only", stateDir }, stateDir);
  const why = withheldDocument(pack) ?? (!pack.ok ? "it no longer loads (see hcp validate)" : untrustedBecause(pack, stateDir));
  return why === undefined ? { ...record, matches: true } : { ...record, matches: false, why };
}

function listText(states: readonly Awaited<ReturnType<typeof stateOf>>[], legacy: string | undefined): string {
  const note = legacy === undefined ? "" : `${escapeForPerson(legacy)} holds trusts recorded by an earlier hcp, which no longer count (they bound no programs): trust those packs again, then remove it.\n`;
  if (states.length === 0) return `No pack is trusted.\n${note}`;
  const lines = states.map((s) => `${escapeForPerson(JSON.stringify(s.id))} ${escapeForPerson(s.root)} (trusted ${s.trusted_at}): ${s.matches ? "matches" : `does not match: ${escapeForPerson(s.why ?? "")}`}`);
  return lines.join("\n") + "\n" + note;
}

export async function trustHandler(ctx: Context): Promise<void> {
  const stateDir = stateDirOf(process.env);
  const revoke = ctx.bool("revoke");
  if (ctx.bool("list")) {
    if (ctx.args.length > 0 || revoke) throw new TransportError("usage", "--list takes no pack and no --revoke");
    const packs = await Promise.all(readTrustRecords(stateDir).map((r) => stateOf(r, stateDir)));
    const legacy = hasLegacyStore(stateDir) ? legacyStoreOf(stateDir) : undefined;
    // A folder's name is the agent's to choose: written as JSON, its invisible and reordering characters are escaped.
    await ctx.writeOutput({ model: { packs, ...(legacy === undefined ? {} : { ignored_store: legacy }) }, human: () => listText(packs, legacy), visible: true });
    return;
  }
  const path = ctx.args[0];
  if (path === undefined) throw new TransportError("usage", "give the pack folder to trust (or --revoke PACK, or --list)");
  if (revoke) {
    // Taking a trust away needs no person: it only ever refuses more.
    const real = realPackPath(path);
    const root = basename(real) === "surface.json" ? dirname(real) : real;
    if (!revokeTrust(root, stateDir)) throw new TransportError("unknown_pack", `no trust is recorded for ${root} (see hcp trust --list)`);
    await ctx.writeResult({ root, trusted: false }, () => `No longer trusted: ${escapeForPerson(root)}. hcp run no longer runs it.\n`);
    return;
  }
  requirePersonAtTerminal(ctx, "hcp trust", "trust a pack it wrote");
  const pack = await packAt(path);
  // Read once: what the person is shown is what is recorded, whatever changes in the folder while they read.
  const binding = bindingOf(pack, [givenPackFolder(path)]);
  if (typeof binding === "string") throw new RuntimeError("invalid_pack", `pack at ${pack.root} cannot be trusted: ${binding}`);
  const yes = await askYesNo(process.stdin, process.stdout, `About to trust ${trustReview(pack, process.env, binding, lastTrust(pack, stateDir))}\n`, "Trust this pack? [y/N] ");
  if (!yes) {
    await ctx.writeResult({ root: pack.root, trusted: false }, () => "Not trusted: nothing was recorded.\n");
    return;
  }
  const record = trustPack(pack, stateDir, binding);
  await ctx.writeResult(
    { ...record, trusted: true },
    () =>
      `Trusted. hcp run runs this pack (with its credentials, if it reads any) until anything in its folder, or a program it names outside it, changes; take it back with: hcp trust --revoke ${shellWord(record.root)}\n`,
  );
}
