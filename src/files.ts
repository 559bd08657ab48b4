// Writing files the one safe way: every writer in the project (rungrad skill and new, hcp init) goes
// through writeFiles, which writes all of its files or none and never writes through a symbolic link.
// Also mkdir -p one level at a time: Node 20's recursive mkdir never returns for some paths (a missing
// directory under /proc, for one), and a command must fail, not hang.

import { systemReason } from "./errno.js";
import { randomBytes } from "node:crypto";
import { mkdirSync, statSync } from "node:fs";
import { lstat, link, mkdir, open, rename, rmdir, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** mkdir -p: creates PATH and its missing parents (mode for each new one); existing directories are fine. Returns the created ones, outermost first. */
export async function makeDirs(path: string, mode = 0o755): Promise<string[]> {
  return makeDirsSync(path, mode);
}

/** makeDirs without waiting (a few system calls), for callers that cannot wait: one implementation for both. */
export function makeDirsSync(path: string, mode = 0o755): string[] {
  const missing: string[] = [];
  // Relative paths stay relative: a path too long to make absolute still works as given.
  for (let dir = path || "."; ; dir = dirname(dir)) {
    try {
      if (statSync(dir).isDirectory()) break;
      throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}'`), { code: "ENOTDIR" });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      missing.push(dir);
      if (dirname(dir) === dir) break;
    }
  }
  const created: string[] = [];
  for (const dir of missing.toReversed()) {
    try {
      mkdirSync(dir, { mode });
      created.push(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  return created;
}

/** A write that was refused or failed; the message names the path and why. */
export class FileWriteError extends Error {
  override name = "FileWriteError";
  constructor(
    readonly path: string,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface FileToWrite {
  /** Relative to the root, `/`-separated. */
  path: string;
  content: string | Uint8Array;
  /** 0644 by default. */
  mode?: number;
}

export interface WriteOptions {
  /** Whether an existing regular file may be replaced; without it an existing target is refused. */
  replace?: boolean;
  /** The mode of each directory created; 0755 by default. */
  dirMode?: number;
}

const errno = (err: unknown) => (err as NodeJS.ErrnoException).code ?? "EIO";

/** lstat, or undefined when nothing is there; any other failure (EACCES…) is refused, never taken for "absent". */
async function entry(path: string) {
  try {
    return await lstat(path);
  } catch (err) {
    if (errno(err) === "ENOENT") return undefined;
    throw new FileWriteError(path, errno(err), `cannot check ${path}: ${systemReason(err)}`);
  }
}

const refuseLink = (path: string) =>
  new FileWriteError(path, "ELOOP", `refusing to write through ${path}: it is a symbolic link (remove it, or choose another output folder)`);

const quietly = (p: Promise<unknown>) => p.catch(() => {});

/** What one run did, so that a failure can undo it. */
class Undo {
  readonly dirs: string[] = [];
  readonly temps = new Set<string>();
  readonly created: string[] = [];

  async run(): Promise<void> {
    for (const t of this.temps) await quietly(unlink(t));
    for (const f of this.created) await quietly(unlink(f));
    for (const d of this.dirs.toReversed()) await quietly(rmdir(d));
  }
}

/** The directories from root down to `dir`, created where missing; a link or non-directory below root is refused. */
async function directories(root: string, parts: readonly string[], mode: number, undo: Undo): Promise<string> {
  let dir = root;
  for (const part of parts) {
    dir = join(dir, part);
    const st = await entry(dir);
    if (st === undefined) {
      try {
        await mkdir(dir, { mode });
      } catch (err) {
        throw new FileWriteError(dir, errno(err), `cannot create ${dir}: ${systemReason(err)}`);
      }
      undo.dirs.push(dir);
    } else if (st.isSymbolicLink()) throw refuseLink(dir);
    else if (!st.isDirectory()) throw new FileWriteError(dir, "ENOTDIR", `cannot write under ${dir}: it is not a directory`);
  }
  return dir;
}

/** Writes content to a new file beside target: created exclusively (never an existing file or link), random short name, 0600 until written. */
async function tempBeside(target: string, file: FileToWrite, undo: Undo): Promise<string> {
  const temp = join(dirname(target), `.${randomBytes(6).toString("hex")}.tmp`);
  let handle;
  try {
    handle = await open(temp, "wx", 0o600);
    undo.temps.add(temp);
    await handle.writeFile(file.content);
    await handle.chmod(file.mode ?? 0o644);
    await handle.sync();
  } catch (err) {
    throw new FileWriteError(target, errno(err), `cannot write ${target}: ${systemReason(err)}`);
  } finally {
    await handle?.close();
  }
  return temp;
}

/**
 * Writes every file under root, or none: each is written to a temporary file beside its target,
 * and only once all are written are they moved into place (rename: a reader never sees half a file).
 * A symbolic link is never followed below root (root itself is the caller's choice): a link where a
 * directory or a file would go is refused, naming it. Any failure removes what this call created.
 */
export async function writeFiles(root: string, files: readonly FileToWrite[], opts: WriteOptions = {}): Promise<void> {
  const undo = new Undo();
  try {
    undo.dirs.push(...(await makeDirs(root, opts.dirMode)));
    const staged: { target: string; temp: string; exists: boolean }[] = [];
    for (const file of files) {
      const parts = file.path.split("/");
      const dir = await directories(root, parts.slice(0, -1), opts.dirMode ?? 0o755, undo);
      const target = join(dir, parts.at(-1)!);
      const st = await entry(target);
      if (st?.isSymbolicLink()) throw refuseLink(target);
      if (st !== undefined && !st.isFile()) throw new FileWriteError(target, "EEXIST", `refusing to replace ${target}: it is not a regular file`);
      if (st !== undefined && !opts.replace) throw new FileWriteError(target, "EEXIST", `refusing to replace ${target}: it already exists`);
      staged.push({ target, temp: await tempBeside(target, file, undo), exists: st !== undefined });
    }
    for (const { target, temp, exists } of staged) {
      await place(temp, target, exists);
      undo.temps.delete(temp);
      if (!exists) undo.created.push(target);
    }
  } catch (err) {
    await undo.run();
    if (err instanceof FileWriteError) throw err;
    throw new FileWriteError(root, errno(err), `cannot write under ${root}: ${systemReason(err)}`);
  }
}

/** Moves a temporary file onto its target: a new target is linked (fails if anything appeared there meanwhile), an existing one replaced. */
async function place(temp: string, target: string, replace: boolean): Promise<void> {
  try {
    if (replace) {
      await rename(temp, target);
      return;
    }
    try {
      await link(temp, target);
    } catch (err) {
      // Filesystems without hard links: rename, which replaces only what appeared since the check, never writes through it.
      if (errno(err) === "EEXIST") throw err;
      await rename(temp, target);
      return;
    }
    await unlink(temp);
  } catch (err) {
    throw new FileWriteError(target, errno(err), `cannot write ${target}: ${systemReason(err)}`);
  }
}

/** writeFiles for one file, at any path. */
export function writeFileSafely(path: string, content: string | Uint8Array, opts: WriteOptions & { mode?: number } = {}): Promise<void> {
  return writeFiles(dirname(path), [{ path: basename(path), content, mode: opts.mode }], opts);
}
