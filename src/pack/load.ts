// The pack loader: the only module doing I/O. Reads surface.json, policy.json and HARNESS.md and validates them.

import { createHash } from "node:crypto";
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { jsonSyntax } from "../json/parse-error.js";
import { FileReadError, readRegularFile } from "../read-regular.js";
import { parseHarness } from "./harness.js";
import { harnessPolicyIssues } from "./harness-policy.js";
import { IssueSink, hasErrors, index, isObject, prop } from "./issues.js";
import { duplicateKeyIssue, parsePolicy } from "./policy.js";
import { parseSurface } from "./surface.js";
import type { LoadedPack, PackFile, PackHarness } from "./types.js";

/** The largest pack file read (surface.json, policy.json, HARNESS.md): 10 MiB. */
export const PACK_FILE_MAX_BYTES = 10 << 20;

/**
 * The deepest nesting of arrays and objects a pack document may have. Real surfaces and args schemas
 * stay far below it; validators, Ajv and the writers recurse, and must never exhaust the stack.
 */
export const MAX_JSON_DEPTH = 64;

/** Loads one pack from its folder or from the path of its surface.json. Never throws. */
export function loadPack(path: string): LoadedPack {
  try {
    return loadPackFiles(path);
  } catch (e) {
    // A backstop: each reader and validator reports its own issues; this one names anything they missed.
    const root = resolve(path);
    const message = `cannot load the pack: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`;
    const issues: LoadedPack["issues"] = [{ severity: "error", code: "invalid_meta", path: "", message, file: "surface.json" }];
    return { root, surfacePath: join(root, "surface.json"), surface: null, meta: null, policy: null, harness: null, issues, ok: false };
  }
}

function loadPackFiles(path: string): LoadedPack {
  const given = resolve(path);
  const isFile = statOf(given)?.isFile() === true;
  const root = isFile ? dirname(given) : given;
  const surfacePath = isFile ? given : join(root, "surface.json");
  const surfaceSink = new IssueSink("surface.json");
  const surfaceDoc = readJson(surfacePath, surfaceSink, true);

  let surface: LoadedPack["surface"] = null;
  let meta: LoadedPack["meta"] = null;
  const issues = surfaceSink.issues;
  const foreign = surfaceDoc.ok ? foreignDocument(surfaceDoc.value, surfacePath) : null;
  if (foreign !== null) surfaceSink.error("invalid_meta", "", foreign);
  else if (surfaceDoc.ok) {
    const r = parseSurface(surfaceDoc.value);
    surface = r.surface;
    meta = r.meta;
    issues.push(...r.issues);
  }

  const policySink = new IssueSink("policy.json");
  const policyDoc = readJson(join(root, "policy.json"), policySink, false);
  let policy: LoadedPack["policy"] = null;
  issues.push(...policySink.issues);
  const duplicate = policyDoc.ok && policyDoc.text !== undefined ? duplicateKeyIssue(policyDoc.text) : undefined;
  if (duplicate !== undefined) issues.push(duplicate);
  // Without a surface the absence of policy.json is not worth a warning.
  else if (policyDoc.ok && (policyDoc.value !== undefined || surface !== null)) {
    const r = parsePolicy(policyDoc.value, surface);
    policy = r.policy;
    issues.push(...r.issues);
  }
  // What was loaded, for plans (§7): a plan names the exact files it was made from.
  const sha256 = digests(surfaceDoc.text, policyDoc.text);

  let harness: PackHarness | null = null;
  const harnessSink = new IssueSink("HARNESS.md");
  const text = readText(join(root, "HARNESS.md"), harnessSink, false);
  if (text !== undefined) {
    const r = parseHarness(text);
    harness = r.harness;
    issues.push(...r.issues);
    if (surface !== null && !hasErrors(issues)) issues.push(...harnessPolicyIssues(harness.body, { surface, policy }));
  } else if (surface?.harness !== undefined) {
    harness = { frontmatter: null, body: surface.harness, source: "inline" };
  } else if (surface !== null && surface.skill_url === undefined && harnessSink.issues.length === 0) {
    harnessSink.warn("not_conforming", "", "no HARNESS.md, inline harness or skill_url: agents get no Skill text for this pack");
  }
  issues.push(...harnessSink.issues);
  // The surface_id check reports against surface.json; keep file order surface, policy, HARNESS.
  const order: Record<PackFile, number> = { "surface.json": 0, "policy.json": 1, "HARNESS.md": 2 };
  issues.sort((a, b) => order[a.file] - order[b.file]);
  return { root, surfacePath, surface, meta, policy, sha256, harness, issues, ok: !hasErrors(issues) };
}

/**
 * Loads packs from paths that are each a pack folder, a surface.json path, or a pack directory
 * (a folder whose immediate subfolders holding a surface.json are packs, in name order).
 * A pack id loaded twice is an error on the later pack. Never throws.
 */
export function loadPacks(paths: readonly string[]): LoadedPack[] {
  const packs: LoadedPack[] = [];
  for (const p of paths) {
    const abs = resolve(p);
    const st = statOf(abs);
    if (st === undefined || st.isFile() || existsSync(join(abs, "surface.json"))) {
      packs.push(loadPack(abs));
      continue;
    }
    const subs = packFolders(abs);
    if (subs.length === 0) packs.push(loadPack(abs)); // reports the missing surface.json
    for (const d of subs) packs.push(loadPack(d));
  }
  const seen = new Map<string, string>();
  for (const pack of packs) {
    const id = pack.surface?.id;
    if (id === undefined) continue;
    const first = seen.get(id);
    if (first === undefined) seen.set(id, pack.root);
    else {
      pack.issues.push({ severity: "error", code: "invalid_meta", path: "id", message: `pack id ${JSON.stringify(id)} is already loaded from ${first}`, file: "surface.json" });
      pack.ok = false;
    }
  }
  return packs;
}

/** What to do instead, when the document is a rungrad manifest or agentmeta document rather than a surface. */
function foreignDocument(doc: unknown, path: string): string | null {
  const version = isObject(doc) ? doc["schema_version"] : undefined;
  if (typeof version !== "string" || !/^rungrad-(manifest|agentmeta)\//.test(version)) return null;
  const what = version.startsWith("rungrad-manifest/") ? "a rungrad manifest" : "a rungrad agentmeta document";
  const how = version.startsWith("rungrad-manifest/") ? `hcp init --from-manifest ${path} --out <pack folder>` : "hcp init --from-manifest on the CLI's manifest (`<cli> __rungrad_manifest`)";
  return `this is ${what} (${version}), not a pack's surface.json: make a pack from it with ${how}`;
}

function statOf(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** The packs of a folder of packs: its subfolders that hold a surface.json, sorted by name; none when it is no folder. */
export function packFolders(path: string): string[] {
  return listDirs(path)
    .filter((d) => existsSync(join(path, d, "surface.json")))
    .map((d) => join(path, d));
}

function listDirs(path: string): string[] {
  try {
    return readdirSync(path, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith("."))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/** File text, or undefined: an io error, except a missing optional file which is silently absent. */
function readText(path: string, sink: IssueSink, required: boolean): string | undefined {
  try {
    return readRegularFile(path, PACK_FILE_MAX_BYTES).toString("utf8");
  } catch (e) {
    if (!(e instanceof FileReadError)) throw e;
    if (!required && e.code === "ENOENT") return undefined;
    sink.error("io", "", `cannot read ${basename(path)}: ${e.reason}`);
    return undefined;
  }
}

type JsonRead = { ok: true; value: unknown; text?: string } | { ok: false; text?: string };

function digest(text: string | undefined): string | null {
  return text === undefined ? null : createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * The SHA-256 of the texts as loaded, each computed when first read: a run that shows, stores and
 * checks no plan (a plain read) never hashes the files, nor loads node:crypto.
 */
function digests(surface: string | undefined, policy: string | undefined): NonNullable<LoadedPack["sha256"]> {
  let surfaceHex: string | null | undefined;
  let policyHex: string | null | undefined;
  return {
    get surface() {
      if (surfaceHex === undefined) surfaceHex = digest(surface);
      return surfaceHex;
    },
    get policy() {
      if (policyHex === undefined) policyHex = digest(policy);
      return policyHex;
    },
  };
}

/** A JSON file's value (and text); `undefined` value when an optional file is absent. */
function readJson(path: string, sink: IssueSink, required: boolean): JsonRead {
  const before = sink.issues.length;
  const text = readText(path, sink, required);
  if (text === undefined) return sink.issues.length > before ? { ok: false } : { ok: true, value: undefined };
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let value: unknown;
  try {
    value = JSON.parse(src);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const { line, column } = jsonErrorAt(src, message);
    // Not V8's excerpt of the text: the file may be a link to any file of the person's (a token file).
    sink.error("io", "", `invalid JSON at line ${line}, column ${column}: ${jsonSyntax(e)}`);
    return { ok: false, text: src };
  }
  const deep = tooDeep(value, MAX_JSON_DEPTH);
  if (deep !== undefined) {
    sink.error("invalid_meta", deep, `nested more than ${MAX_JSON_DEPTH} levels deep; the document is not read further`);
    return { ok: false, text: src };
  }
  return { ok: true, value, text: src };
}

/** The path of the first value nested deeper than `max` arrays and objects, else undefined. Iterative: no recursion. */
export function tooDeep(root: unknown, max: number): string | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: root, path: "", depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value !== "object" || value === null) continue;
    if (depth >= max) return path;
    if (Array.isArray(value)) value.forEach((v, i) => stack.push({ value: v, path: index(path, i), depth: depth + 1 }));
    else for (const [k, v] of Object.entries(value)) stack.push({ value: v, path: prop(path, k), depth: depth + 1 });
  }
  return undefined;
}

/**
 * The offset of JSON.parse's failure: the position it reports, else found by bisection —
 * prefixes before the bad character fail only with "end of input" (or parse).
 */
function jsonErrorOffset(src: string, message: string): number {
  const m = /at position (\d+)/.exec(message);
  if (m) return Number(m[1]);
  const bad = (n: number): boolean => {
    try {
      JSON.parse(src.slice(0, n));
      return false;
    } catch (e) {
      const text = e instanceof Error ? e.message : "";
      const at = /at position (\d+)/.exec(text);
      if (at) return Number(at[1]) < n;
      return !/end of JSON input/i.test(text);
    }
  };
  let lo = 0;
  let hi = src.length;
  if (!bad(hi)) return src.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (bad(mid)) hi = mid;
    else lo = mid + 1;
  }
  return Math.max(0, lo - 1);
}

/** Where JSON.parse failed on `src`, as a line and column (1-based), from its error message. */
export function jsonErrorAt(src: string, message: string): { line: number; column: number } {
  return lineColumn(src, jsonErrorOffset(src, message));
}

function lineColumn(src: string, offset: number): { line: number; column: number } {
  let line = 1;
  let last = -1;
  for (let i = 0; i < offset && i < src.length; i++) {
    if (src.charCodeAt(i) === 10) {
      line++;
      last = i;
    }
  }
  return { line, column: offset - last };
}
