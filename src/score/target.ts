// What `rungrad score` scores: the target program, its fixture commands, and Go's target-path resolution.

import { statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { ExitCode, RungradError } from "../framework/errors.js";
import { goQuote, isGoBlank } from "../json/goquote.js";

/** The program and which of its commands exercise each probe; an absent fixture makes its probes n/a. */
export interface Target {
  path: string;
  read?: readonly string[];
  mutate?: readonly string[];
  auth?: readonly string[];
  ambiguous?: readonly string[];
  notFound?: readonly string[];
  apiError?: readonly string[];
  forbidden?: readonly string[];
  rateLimited?: readonly string[];
  /** Exercised only through its dry-run and refused-confirmation paths (never --confirm). */
  destructive?: readonly string[];
  hasUpdate?: boolean;
  secret?: readonly string[];
  secretEnv?: string;
  /** "" or auto (default), off, required. */
  manifestMode?: string;
}

/** A usage error in the score command's target configuration (exit 1). */
export class TargetError extends RungradError {
  override name = "TargetError";
  constructor(message: string) {
    super(ExitCode.Usage, message);
  }
}

export type ManifestMode = "auto" | "off" | "required";

/** "" means auto; anything but auto/off/required is a usage error. */
export function normalizeManifestMode(mode: string | undefined): ManifestMode {
  if (mode === undefined || mode === "" || mode === "auto") return "auto";
  if (mode === "off" || mode === "required") return mode;
  throw new TargetError(`unknown manifest mode ${goQuote(mode)} (want auto, off, or required)`);
}

type Stat = { isDir: boolean; executable: boolean } | null;

function statPath(path: string): Stat {
  try {
    const st = statSync(path);
    return { isDir: st.isDirectory(), executable: process.platform === "win32" || (st.mode & 0o111) !== 0 };
  } catch {
    return null;
  }
}

/** Go's exec.LookPath for a bare name: the first executable regular file on PATH; a relative hit is refused (ErrDot). */
function lookPath(name: string): string | null {
  for (const entry of (process.env["PATH"] ?? "").split(delimiter)) {
    const candidate = join(entry === "" ? "." : entry, name);
    const st = statPath(candidate);
    if (st && !st.isDir && st.executable) return isAbsolute(candidate) ? candidate : null;
  }
  return null;
}

/** The absolute path of an executable target, or a TargetError with Go's texts. A bare name is looked up on PATH. */
export function resolveTargetPath(input: string): string {
  if (isGoBlank(input)) throw new TargetError("target path is required");
  let path = input;
  // filepath.Base(path) == path: no separator at all, or the bare root (which LookPath refuses).
  if (path === "/") throw new TargetError(`target is not executable: ${path}`);
  if (!path.includes("/")) {
    const found = lookPath(path);
    if (found === null) throw new TargetError(`target is not executable: ${path}`);
    path = found;
  }
  let abs: string;
  try {
    abs = resolve(path);
  } catch (err) {
    throw new TargetError(`resolve target path: ${(err as Error).message}`);
  }
  const st = statPath(abs);
  if (st === null) throw new TargetError(`target is not executable: ${path}`);
  if (st.isDir) throw new TargetError(`target is a directory: ${path}`);
  if (!st.executable) throw new TargetError(`target is not executable: ${path}`);
  return abs;
}
