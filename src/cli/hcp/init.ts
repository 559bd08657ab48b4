// `hcp init`: writes a pack (surface.json, policy.json, HARNESS.md) from a rungrad manifest (hcp.md §10), all or nothing.

import { mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { stableJSON } from "../../json/stable.js";
import { formatIssue } from "../../pack/issues.js";
import { loadPack } from "../../pack/load.js";
import { packFromAgentMeta } from "../../pack/from-agentmeta.js";
import { renderSkill } from "../../skill/index.js";
import { CliError } from "../errors.js";
import { projectText, readManifestText } from "../rungrad/documents.js";

export interface InitOptions {
  fromManifest?: string;
  fromExe?: string;
  /** wrap.bin; by default the --from-exe program (made absolute when it is a path) or the tool name. */
  bin?: string;
  out: string;
  force?: boolean;
  json?: boolean;
}

const FILES = ["surface.json", "policy.json", "HARNESS.md"] as const;

function entries(dir: string): string[] | undefined {
  try {
    return readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new CliError(`read ${dir}: ${(e as Error).message}`);
  }
}

export async function initCommand(opts: InitOptions): Promise<{ stdout: string; stderr: string }> {
  if ((opts.fromManifest === undefined) === (opts.fromExe === undefined)) {
    throw new CliError("give exactly one of --from-manifest FILE (or -) and --from-exe PROGRAM");
  }
  const out = resolve(opts.out);
  const existing = entries(out);
  if (existing !== undefined && existing.length > 0 && !opts.force) {
    throw new CliError(`refusing to write into ${opts.out}: it is not empty (use --force to replace the pack files in it)`);
  }
  const doc = projectText(await readManifestText({ file: opts.fromManifest, fromExe: opts.fromExe }));
  const exe = opts.fromExe !== undefined && opts.fromExe.includes("/") ? resolve(opts.fromExe) : opts.fromExe;
  const bin = opts.bin ?? exe ?? doc.tool_name;
  const skill = renderSkill(doc).find((f) => f.path.endsWith("/SKILL.md"))?.content;
  const pack = packFromAgentMeta(doc, { bin, skill });
  const content: Record<(typeof FILES)[number], string> = {
    "surface.json": stableJSON(pack.surface),
    "policy.json": stableJSON(pack.policy),
    "HARNESS.md": pack.harness,
  };

  // Write into a fresh folder beside the target, check it, then move it (or its files) into place.
  const parent = dirname(out);
  let staging: string;
  try {
    staging = mkdtempSync(join(parent, `.${basename(out)}.hcp-init-`));
  } catch (e) {
    throw new CliError(`cannot write beside ${opts.out}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    for (const f of FILES) writeFileSync(join(staging, f), content[f], { mode: 0o644 });
    const check = loadPack(staging);
    const errors = check.issues.filter((i) => i.severity === "error");
    if (errors.length > 0) throw new CliError(`the generated pack does not validate: ${errors.map((i) => formatIssue(i)).join("; ")}`, 2);
    if (existing === undefined) renameSync(staging, out);
    else for (const f of FILES) renameSync(join(staging, f), join(out, f));
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  const files = FILES.map((f) => join(opts.out, f));
  const stdout = opts.json
    ? stableJSON({ out: opts.out, pack_id: pack.surface.id, files, notes: pack.notes })
    : `wrote pack ${pack.surface.id} (${Object.keys(pack.surface.verbs).length} verbs): ${files.join(", ")}\n`;
  return { stdout, stderr: opts.json ? "" : pack.notes.map((n) => `note: ${n}\n`).join("") };
}
