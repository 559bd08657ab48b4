// `hcp list`, `hcp validate`, `hcp meta`, `hcp skill` and `hcp describe`: the pack commands that only read packs.
// An agent can run them on a pack it wrote: none fetches the document an untrusted openapi pack names by URL.

import { join, relative, isAbsolute } from "node:path";
import type { Context } from "../../framework/index.js";
import { stableJSON } from "../../json/stable.js";
import { formatIssue } from "../../pack/issues.js";
import { colourOn, paint } from "../colour.js";
import { loadPacks } from "../../pack/load.js";
import type { Issue, LoadedPack } from "../../pack/types.js";
import { TransportError } from "../../transports/errors.js";
import { describePack, programLines, renderDescription, runUsage } from "../../transports/describe.js";
import { listPacks, renderList } from "../../transports/list.js";
import { harnessText, loadOnePack, loadServed, servable, type ServedPack } from "../../transports/packs.js";
import { mcpRefusal } from "../../transports/tools.js";
import { stateDirOf } from "../../runtime/approval/state.js";
import { boundDocument, loadOpenApiDocuments } from "../../runtime/openapi/packs.js";
import { baseUrlOf } from "../../runtime/openapi/request.js";
import { RuntimeError } from "../../runtime/errors.js";
import { refuseWithheldDocument } from "../../runtime/trust/trust.js";
import { plural } from "../../listing.js";
import { packSecrets } from "../../runtime/secrets/secrets.js";
import { redactStrings, redactText, type SecretSet } from "../../runtime/secrets/redact.js";
import { serveOptions } from "./flags.js";

/** A path for messages: relative to the working directory when inside it. */
function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? path : rel;
}

export async function listHandler(ctx: Context): Promise<void> {
  const opts = serveOptions(ctx);
  const stateDir = stateDirOf(process.env);
  const { packs, skipped } = await loadServed(ctx.args, null, { ...opts, controlPlane: true }, { fetch: "trusted-only", stateDir });
  for (const s of skipped) process.stderr.write(`Warning: skipped ${s.root}: ${s.reason}\n`);
  const listing = masked(listPacks(packs, opts), packs);
  await ctx.writeResult(listing, () => renderList(listing));
}


/** Every issue of every pack, then a summary; exit 1 when any pack has an error. */
export async function validateHandler(ctx: Context): Promise<void> {
  const packs = loadPacks([...ctx.args]);
  const stateDir = stateDirOf(process.env);
  await loadOpenApiDocuments(packs, { fetch: "trusted-only", stateDir }, stateDir);
  for (const p of packs) {
    warnOfMcpRefusal(p);
    warnOfNoBaseUrl(p);
  }
  const secrets = secretsOf(packs);
  const model = redactStrings({ packs: packs.map((p) => ({ path: shown(p.root), ok: p.ok, pack_id: p.surface?.id ?? null, issues: p.issues, meta: p.meta })) }, secrets);
  await ctx.writeResult(model, () => redactText(validationText(packs, colourOn(process.stdout, ctx.bool("no-color"))), secrets));
  ctx.setExitCode(packs.every((p) => p.ok) ? 0 : 1);
}

const FILE_ORDER: readonly Issue["file"][] = ["surface.json", "policy.json", "HARNESS.md"];

/** A warning among the pack's issues, after the others of its file and before those of the files after it. */
function warn(pack: LoadedPack, file: Issue["file"], code: Issue["code"], path: string, message: string): void {
  const next = pack.issues.findIndex((i) => FILE_ORDER.indexOf(i.file) > FILE_ORDER.indexOf(file));
  pack.issues.splice(next < 0 ? pack.issues.length : next, 0, { severity: "warning", code, path, message, file });
}

/** A pack that loads but whose verbs hcp serve --mcp cannot make tools gets a warning saying why and what to do. */
function warnOfMcpRefusal(pack: LoadedPack): void {
  const surface = pack.surface;
  if (!pack.ok || surface === null || (surface.transports !== undefined && !surface.transports.includes("mcp"))) return;
  const why = mcpRefusal(pack as ServedPack);
  if (why !== undefined) warn(pack, "surface.json", "not_conforming", "verbs", `hcp serve --mcp does not serve this pack (named directly it refuses to start; in a folder of packs it leaves the pack out): ${why}`);
}

/** An API pack with no base URL loads, and every call of it fails: say so where a person checks the pack. */
function warnOfNoBaseUrl(pack: LoadedPack): void {
  const document = pack.ok && pack.surface?.kind === "openapi" ? boundDocument(pack) : undefined;
  if (document === undefined) return;
  try {
    baseUrlOf(pack.policy, document, pack.surface?.binding?.mode !== "mock");
  } catch (e) {
    if (!(e instanceof RuntimeError)) throw e;
    warn(pack, "policy.json", "policy", "openapi.base_url", `no verb of this pack can run: ${e.message}`);
  }
}

/** `<severity>: <issue>` per issue (errors red, warnings yellow on a terminal), then a summary. */
function validationText(packs: readonly LoadedPack[], colour: boolean): string {
  const lines: string[] = [];
  let errors = 0;
  for (const p of packs) {
    for (const issue of p.issues) {
      const severity = paint(colour, issue.severity === "error" ? "red" : "yellow", issue.severity);
      // The surface document is the file given, whatever its name.
      const file = shown(issue.file === "surface.json" ? p.surfacePath : join(p.root, issue.file));
      lines.push(`${severity}: ${formatIssue(issue, file)}`);
    }
    errors += p.issues.filter((i) => i.severity === "error").length;
  }
  const warnings = packs.reduce((n, p) => n + p.issues.length, 0) - errors;
  const bad = packs.filter((p) => !p.ok).length;
  lines.push(`${plural(packs.length, "pack")}: ${packs.length - bad} valid, ${bad} invalid; ${plural(errors, "error")}, ${plural(warnings, "warning")}`);
  return lines.join("\n") + "\n";
}

/** The derived HarnessPackMeta as StableJSON (the same bytes with or without --json); a pack with errors is refused naming its first one. */
export async function metaHandler(ctx: Context): Promise<void> {
  const pack = servable(loadOnePack(ctx.args[0]!), null, { controlPlane: true });
  const meta = masked(pack.meta, [pack]);
  await ctx.writeResult(meta, () => stableJSON(meta));
}

/** HARNESS.md as is; under --json `{pack_id, harness}`; a pack with errors is refused naming its first one. */
export async function skillHandler(ctx: Context): Promise<void> {
  // A pack that does not load is named for what is wrong with it, not for a missing HARNESS.md.
  const pack = servable(loadOnePack(ctx.args[0]!), null, { controlPlane: true });
  const text = harnessText(pack);
  if (text === undefined) {
    const url = pack.surface?.skill_url;
    throw new TransportError("no_harness", `pack at ${shown(pack.root)} has no HARNESS.md or inline harness text${url ? `; its Skill is at ${url}` : ""}`);
  }
  const harness = redactText(text.endsWith("\n") ? text : text + "\n", secretsOf([pack]));
  await ctx.writeResult({ pack_id: pack.surface.id, harness }, () => harness);
}

/** The pack at `path` to describe. An agent's command, as hcp run is: nobody is asked to trust the pack, so an untrusted pack's URL is not fetched. */
async function describable(path: string): Promise<ServedPack> {
  const loaded = loadOnePack(path);
  const stateDir = stateDirOf(process.env);
  await loadOpenApiDocuments([loaded], { fetch: "trusted-only", stateDir }, stateDir);
  refuseWithheldDocument(loaded);
  return servable(loaded, null, { controlPlane: true });
}

/** The credentials hcp knows (the credential file's, the packs' policy env, the keyrings of trusted packs). */
function secretsOf(packs: readonly LoadedPack[]): SecretSet {
  return packSecrets(packs, process.env, stateDirOf(process.env));
}

/**
 * What these commands print of packs, with every credential hcp knows masked in its text as in all output (§12): a
 * pack's text may hold one (a default its CLI's help showed), and an agent runs them (hcp describe, run --help too).
 */
function masked<T>(value: T, packs: readonly LoadedPack[]): T {
  return redactStrings(value, secretsOf(packs));
}

/** Each verb's arguments, policy, approval and argv template: the whole pack, or one verb. */
export async function describeHandler(ctx: Context): Promise<void> {
  const pack = await describable(ctx.args[0]!);
  const description = masked(describePack(pack, ctx.args[1]), [pack]);
  await ctx.writeResult(description, () => renderDescription(description, programLines(pack)));
}

/** `hcp run PACK VERB --help`: what hcp describe PACK VERB shows, then how hcp run takes it; null (hcp run's own help) without a VERB. */
export async function runVerbHelp(operands: readonly string[]): Promise<string | null> {
  if (operands.length < 2) return null;
  const pack = await describable(operands[0]!);
  const description = masked(describePack(pack, operands[1]), [pack]);
  return renderDescription(description, programLines(pack), runUsage(operands[0]!, description.verbs[0]!));
}
