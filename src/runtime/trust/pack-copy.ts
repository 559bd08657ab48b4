// hcp run runs a trusted pack from a private copy of its folder, so nothing written in the folder after hcp's
// check (a script swapped, the folder renamed away and back, a file a script sources late) reaches the run. The
// copy is `packs/<SHA-256 of the folder's real path>/<tree digest>/` in the state directory (as protected as the
// trust records): made in a fresh 0700 folder beside it, hashed with the trust's own tree digest (pack-tree.ts),
// compared to the digest a person trusted, made read-only, then renamed into place (a maker that loses the rename
// to another uses the winner's). A copy in place is used as is. When a new one is made, copies not used for a day are
// removed (a run is never that long in practice; one that is only loses files, never gets another's), and so are
// copies left half made by an hcp that is no longer running (killed) for ten minutes. `hcp trust --revoke` removes the
// folder's copies. Neither touches the copies of a folder while an hcp runs from one (its mark `.run-<PID>` there),
// and a copy is renamed away before it is removed. Nothing in `packs/` is followed: a link planted there is removed,
// never what it leads to.

import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeSync,
  type Dirent,
} from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import type { Plan } from "../plan.js";
import type { ProgramBinding } from "./pack-programs.js";
import { resolveProgram } from "../resolve.js";
import { escapeForPerson } from "../approval/show.js";
import { ensurePrivateDirSync } from "../approval/state.js";
import { RuntimeError } from "../errors.js";
import { within } from "../../within.js";
import { MAX_TREE_BYTES, MAX_TREE_ENTRIES, openListedFile, packTree, TreeError } from "./pack-tree.js";
import { systemReason } from "../../errno.js";

/** How long a copy not used is kept once a newer copy is made. */
const KEEP_UNUSED_MS = 24 * 3600 * 1000;
/** A copy being made: `.new-<PID of the hcp making it>-XXXXXX`. */
const MAKING = /^\.new-(\d+)-/;
/**
 * How long a copy left half made by an hcp no longer running is kept: a copy takes seconds to make; the margin is for a
 * maker in another PID namespace sharing the state directory, whose PID names another process here.
 */
const KEEP_HALF_MADE_MS = 10 * 60 * 1000;
const BUFFER = Buffer.alloc(64 << 10);
/** A mark of a run of one of the folder's copies: `.run-<PID of the hcp running it>`, removed as that hcp exits. */
const RUNNING = /^\.run-(\d+)$/;

const copiesOf = (stateDir: string, root: string) => join(stateDir, "packs", createHash("sha256").update(root, "utf8").digest("hex"));

/** Whether a copy is at `path`: a folder (only hcp writes there). */
function isFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw err;
  }
}

/** Copies the regular file `from` (never a link, never blocking on a FIFO) to a new file `to`, read-only; its size. */
function copyFile(from: string, to: string, shown: string, budget: number): number {
  const { fd: src, st } = openListedFile(from, shown, "copied");
  try {
    const dst = openSync(to, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, (st.mode & 0o111) !== 0 ? 0o500 : 0o400);
    try {
      let size = 0;
      for (let got; (got = readSync(src, BUFFER, 0, BUFFER.length, null)) > 0; ) {
        size += got;
        if (size > budget) throw new TreeError(`the pack folder grew past ${MAX_TREE_BYTES >> 20} MiB while it was copied`);
        writeSync(dst, BUFFER, 0, got);
      }
      return size;
    } finally {
      closeSync(dst);
    }
  } finally {
    closeSync(src);
  }
}

/** Copies the folder `from` into the empty folder `to`: files, folders and links (by their target), within the tree's bounds. */
function copyTree(from: string, to: string): void {
  let entries = 0;
  let bytes = 0;
  const walk = (src: string, dst: string, rel: string) => {
    let listing: Dirent[];
    try {
      listing = readdirSync(src, { withFileTypes: true });
    } catch (err) {
      throw new TreeError(`cannot list ${rel === "" ? "the pack folder" : rel}: ${systemReason(err)}`);
    }
    for (const d of listing) {
      const shown = rel === "" ? d.name : `${rel}/${d.name}`;
      if (++entries > MAX_TREE_ENTRIES) throw new TreeError(`the pack folder grew past ${MAX_TREE_ENTRIES} entries while it was copied`);
      const [s, t] = [join(src, d.name), join(dst, d.name)];
      if (d.isDirectory()) {
        mkdirSync(t, 0o700);
        walk(s, t, shown);
      } else if (d.isSymbolicLink()) symlinkSync(readlinkSync(s), t);
      else if (d.isFile()) bytes += copyFile(s, t, shown, MAX_TREE_BYTES - bytes);
      else throw new TreeError(`${shown} is not a file, folder or link`);
    }
  };
  walk(from, to, "");
}

/** Sets the mode of every folder under `top` (itself included), parents first. */
function chmodFolders(top: string, mode: number): void {
  chmodSync(top, mode);
  for (const d of readdirSync(top, { withFileTypes: true })) if (d.isDirectory()) chmodFolders(join(top, d.name), mode);
}

/**
 * Removes a copy (read-only) or a copy being made, never following a link; what cannot be removed stays. A copy is first
 * renamed to a name of one being made by this hcp: a removal cut short (hcp killed) never leaves part of a copy where a
 * run would use it as is, and a later prune finishes it.
 */
function removeCopy(path: string): void {
  try {
    // Only hcp writes here: anything but a folder (a link planted) is removed itself, not what it leads to.
    if (!lstatSync(path).isDirectory()) return unlinkSync(path);
    const gone = MAKING.test(basename(path)) ? path : join(dirname(path), `.new-${process.pid}-gone-${randomBytes(6).toString("hex")}`);
    if (gone !== path) renameSync(path, gone);
    chmodFolders(gone, 0o700);
    rmSync(gone, { recursive: true, force: true });
  } catch {
    // another run removed it meanwhile, or it cannot be: it is left, it holds only a trusted copy
  }
}

/** The names in the folder `dir`; none when it cannot be listed (gone meanwhile). */
function namesIn(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Whether the process `pid` is running (one of another user's counts). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/** Whether the copy `name` at `path` may be removed at `now`: not used for a day, or left half made by an hcp gone for ten minutes. */
function stale(path: string, name: string, now: number): boolean {
  let mtime: number;
  try {
    mtime = lstatSync(path).mtimeMs;
  } catch {
    return false; // gone meanwhile
  }
  const maker = Number(MAKING.exec(name)?.[1] ?? 0);
  return mtime < now - (maker > 0 && !running(maker) ? KEEP_HALF_MADE_MS : KEEP_UNUSED_MS);
}

/** Whether an hcp other than this one runs from a copy in the folder of copies `dir`: its mark is there, and it runs. */
function runFrom(dir: string): boolean {
  return namesIn(dir).some((n) => {
    const pid = Number(RUNNING.exec(n)?.[1] ?? 0);
    return pid > 0 && pid !== process.pid && running(pid);
  });
}

/** Removes the stale copies of every folder (stale), but the copy `keep` just made and the folders another hcp runs from. */
function prune(packs: string, keep: string): void {
  const now = Date.now();
  for (const folder of namesIn(packs)) {
    const dir = join(packs, folder);
    if (!isFolder(dir)) {
      removeCopy(dir);
      continue;
    }
    if (runFrom(dir)) continue;
    for (const name of namesIn(dir)) if (join(dir, name) !== keep && stale(join(dir, name), name, now)) removeCopy(join(dir, name));
  }
}

/** Marks the folder of copies `dir` as run from by this hcp until it exits (once; nothing when it does not exist yet). */
function markRun(dir: string): void {
  const mark = join(dir, `.run-${process.pid}`);
  try {
    closeSync(openSync(mark, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW, 0o600));
  } catch {
    return;
  }
  if (marked.has(mark)) return;
  marked.add(mark);
  process.once("exit", () => removeCopy(mark));
}
const marked = new Set<string>();

/**
 * `hcp trust --revoke`: removes every copy of the folder `root` (a real path), read-only or half made, then their folder;
 * none while an hcp runs from one (its program may read its files late, and a file gone could make it run another
 * found elsewhere): those are left to a later prune, once unused for a day.
 */
export function removeCopies(stateDir: string, root: string): void {
  const dir = copiesOf(stateDir, root);
  if (runFrom(dir)) return;
  // Listed only when a folder (lstat): a link planted there is removed itself, never followed.
  if (isFolder(dir)) for (const name of namesIn(dir)) removeCopy(join(dir, name));
  removeCopy(dir);
}

/**
 * The folder of hcp's copy of the pack folder `root` (a real path) whose tree digest a person trusted, `tree`:
 * the copy in place, or a new one made from the folder now and verified. Throws `pack_untrusted` when the folder
 * is no longer the one trusted (it changed after hcp's check), `state_unavailable` when no copy can be made.
 */
export function trustedCopy(stateDir: string, root: string, tree: string): string {
  const dir = copiesOf(stateDir, root);
  const copy = join(dir, tree);
  // Before the copy is looked for, so that a revoke from now on leaves it (one already past its look at the marks may
  // still remove it as this run starts: SECURITY.md).
  markRun(dir);
  if (isFolder(copy)) {
    // Marks it used, so another run's prune keeps it (the owner may set the times of a read-only folder).
    const now = new Date();
    try {
      utimesSync(copy, now, now);
    } catch {
      // not marked: at worst removed after a day while this run still uses it, which only fails its late reads
    }
    return copy;
  }
  for (const d of [stateDir, join(stateDir, "packs"), dir]) ensurePrivateDirSync(d);
  const made = mkdtempSync(join(dir, `.new-${process.pid}-`));
  try {
    copyTree(root, made);
    // What runs is the copy: it is what is compared with what a person trusted.
    const got = packTree(made).sha256;
    if (got !== tree) throw new TreeError("its folder changed after hcp checked it");
    chmodFolders(made, 0o500);
    try {
      renameSync(made, copy);
    } catch (err) {
      // Another run made the same copy first: the same verified tree, used as is.
      if (!isFolder(copy)) throw err;
      removeCopy(made);
    }
  } catch (err) {
    removeCopy(made);
    // Names the folder's writer chose: escaped, as a person may read them.
    if (err instanceof TreeError) throw new RuntimeError("pack_untrusted", escapeForPerson(`the pack at ${root} is not what a person trusted (${err.message}), so nothing ran`));
    throw new RuntimeError("state_unavailable", `cannot copy the pack at ${root} to ${dir} to run it: ${systemReason(err)}`);
  }
  markRun(dir);
  prune(join(stateDir, "packs"), copy);
  return copy;
}

/** Where a program plan runs from the copy, and how its errors name the pack's own paths again. */
export interface RunFrom {
  readonly file: string;
  readonly cwd: string;
  /** An error of starting it (a missing working folder, say), naming the pack folder rather than the copy. */
  asPlanned(err: unknown): unknown;
}

/**
 * Where a program plan runs from the copy: its program and, when policy.json chose it (`cwdOfPack`), its working
 * folder, each when inside the pack folder `root` by its path. A program named by a path that reaches the folder
 * another way (a link outside, a doubled slash) is moved by the real path trust found (`programs`, read at the check
 * just made), never looked up again: what that path leads to now is the agent's to change.
 */
export function runsFrom(plan: Pick<Plan, "argv" | "cwd">, root: string, copy: string, programs: readonly ProgramBinding[], cwdOfPack: boolean): RunFrom {
  // Inside the folder by its path (`..` taken as written: a path climbing out of it is not).
  const inside = (path: string) => within(resolve(path), root);
  const toCopy = (path: string) => join(copy, relative(root, path));
  const program = plan.argv[0] as string;
  const bound = programs.find((b): b is Extract<ProgramBinding, { where: "pack" }> => b.where === "pack" && resolveProgram(b.bin, root, undefined) === program);
  return {
    file: inside(program) ? toCopy(program) : bound !== undefined ? toCopy(bound.path) : program,
    // A working folder reaching the folder through a link elsewhere cannot be trusted (pack-links.ts).
    cwd: cwdOfPack && inside(plan.cwd) ? toCopy(plan.cwd) : plan.cwd,
    // The copy's path holds two SHA-256 digests: it appears in a message only where hcp wrote it.
    asPlanned: (err) => (err instanceof RuntimeError ? new RuntimeError(err.code, err.message.replaceAll(copy, root)) : err),
  };
}
