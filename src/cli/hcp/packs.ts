// `hcp list`, `hcp validate`, `hcp meta` and `hcp skill`: the pack commands that only read packs.

import { join, relative, isAbsolute } from "node:path";
import { stableJSON } from "../../json/stable.js";
import { formatIssue } from "../../pack/issues.js";
import { loadPack, loadPacks } from "../../pack/load.js";
import type { LoadedPack } from "../../pack/types.js";
import { TransportError } from "../../transports/errors.js";
import { listPacks, renderList } from "../../transports/list.js";
import { harnessText, loadServed, servable, type ServeOptions } from "../../transports/packs.js";

/** A path for messages: relative to the working directory when inside it. */
function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? path : rel;
}

export function listCommand(paths: string[], opts: ServeOptions & { json?: boolean }): string {
  const listing = listPacks(loadServed(paths, null, { ...opts, controlPlane: true }), opts);
  return opts.json ? stableJSON(listing) : renderList(listing);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

export interface ValidateReport {
  text: string;
  ok: boolean;
}

/** Every issue of every pack, then a summary; ok when no pack has an error. */
export function validateCommand(paths: string[], opts: { json?: boolean }): ValidateReport {
  const packs = loadPacks(paths);
  const ok = packs.every((p) => p.ok);
  if (opts.json) {
    const body = packs.map((p) => ({ path: shown(p.root), ok: p.ok, pack_id: p.surface?.id ?? null, issues: p.issues, meta: p.meta }));
    return { ok, text: stableJSON({ packs: body }) };
  }
  const lines: string[] = [];
  let errors = 0;
  for (const p of packs) {
    for (const issue of p.issues) lines.push(formatIssue(issue, shown(join(p.root, issue.file))));
    errors += p.issues.filter((i) => i.severity === "error").length;
  }
  const warnings = packs.reduce((n, p) => n + p.issues.length, 0) - errors;
  const bad = packs.filter((p) => !p.ok).length;
  lines.push(`${plural(packs.length, "pack")}: ${packs.length - bad} valid, ${bad} invalid; ${plural(errors, "error")}, ${plural(warnings, "warning")}`);
  return { ok, text: lines.join("\n") + "\n" };
}

/** The derived HarnessPackMeta as StableJSON; a pack with errors is refused naming its first one. */
export function metaCommand(path: string): string {
  const pack = servable(loadPack(path), null, { controlPlane: true });
  return stableJSON(pack.meta);
}

export function skillCommand(path: string): string {
  const pack: LoadedPack = loadPack(path);
  const text = harnessText(pack);
  if (text !== undefined) return text.endsWith("\n") ? text : text + "\n";
  const url = pack.surface?.skill_url;
  throw new TransportError("no_harness", `pack at ${shown(pack.root)} has no HARNESS.md or inline harness text${url ? `; its Skill is at ${url}` : ""}`);
}
