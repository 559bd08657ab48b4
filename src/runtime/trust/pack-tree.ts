// The digest of a pack's whole folder, for trust (`hcp trust`): every regular file by its relative path, its
// executable bit and its content, every folder by its path, every symbolic link by its target text (never
// followed). A change anywhere in the folder changes the digest. While it reads the files, it finds one naming the
// folder itself by an absolute path (pack-self-paths.ts), which a trusted pack may not hold. A FIFO, socket or device, or a folder past
// the bounds, cannot be bound: that throws a TreeError naming the path. Nothing here ever blocks on a FIFO
// (files are opened O_NONBLOCK and checked again once open) or follows a link.

import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readdirSync, readlinkSync, readSync, type Dirent, type Stats } from "node:fs";
import { join } from "node:path";
import type { SelfPaths } from "./pack-self-paths.js";
import { noFollowReason, systemReason } from "../../errno.js";

/** Most entries (files, folders, links) a bound folder may hold. */
export const MAX_TREE_ENTRIES = 10_000;
/** Most bytes its regular files may hold together. */
export const MAX_TREE_BYTES = 256 << 20;

/** A pack folder as bound: `entries` maps each relative path (`/`-separated) to `d`, `f:SHA256`, `x:SHA256` (executable) or `l:TARGET`. */
export interface PackTree {
  readonly sha256: string;
  readonly entries: Readonly<Record<string, string>>;
  readonly files: number;
  readonly bytes: number;
}

/** Why a folder cannot be bound; the message names the path. */
export class TreeError extends Error {
  override name = "TreeError";
}

const CHUNK = Buffer.alloc(64 << 10);

/**
 * Opens the file listed at `path` (shown as `shown`) to read it, never following a link nor blocking on a FIFO: its fd
 * and stat. A TreeError when it cannot be opened, or is no longer a regular file (`doing`: while it was read, copied).
 */
export function openListedFile(path: string, shown: string, doing: string): { fd: number; st: Stats } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    throw new TreeError(`cannot read ${shown}: ${noFollowReason(err)}`);
  }
  try {
    const st = fstatSync(fd);
    // Replaced between the listing and the open: whatever it is now, it is not the file listed.
    if (st.isFile()) return { fd, st };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  closeSync(fd);
  throw new TreeError(`${shown} changed while it was ${doing}`);
}

/**
 * The SHA-256 of the regular file `path` (opened without following a link), its executable bit and size. With `self`,
 * a file naming the pack folder by an absolute path is a TreeError naming the file and the line.
 */
function fileDigest(path: string, shown: string, budget: number, self: SelfPaths | undefined): { sha256: string; executable: boolean; size: number } {
  const { fd, st } = openListedFile(path, shown, "read");
  try {
    const hash = createHash("sha256");
    const scan = self?.file();
    // surface.json and policy.json are read by hcp as JSON, whose escapes (`\/`) the text search does not see.
    const json: Buffer[] | undefined = self !== undefined && (shown === "surface.json" || shown === "policy.json") ? [] : undefined;
    let size = 0;
    // Ask for one byte more than fstat said: most files are read in one call, a file that grew is read on.
    for (let want = Math.min(st.size + 1, CHUNK.length); ; want = CHUNK.length) {
      const got = readSync(fd, CHUNK, 0, want, null);
      size += got;
      if (size > budget) throw tooBig();
      hash.update(CHUNK.subarray(0, got));
      const at = scan?.feed(CHUNK.subarray(0, got), got < want);
      if (at !== undefined && self !== undefined) throw namesFolder(fd, shown, at, self);
      json?.push(Buffer.from(CHUNK.subarray(0, got)));
      if (got < want) break;
    }
    const where = json === undefined ? undefined : self?.json(Buffer.concat(json).toString("utf8"));
    if (where !== undefined && self !== undefined) throw namesFolder(fd, shown, where, self);
    return { sha256: hash.digest("hex"), executable: (st.mode & 0o111) !== 0, size };
  } finally {
    closeSync(fd);
  }
}

/** The refusal of the file `shown` (open as `fd`) naming the pack folder at byte `at` (its line, read again only now) or at a JSON path. */
function namesFolder(fd: number, shown: string, at: number | string, self: SelfPaths): TreeError {
  let where = typeof at === "string" ? at : "";
  if (typeof at === "number") {
    const head = Buffer.alloc(at);
    const got = readSync(fd, head, 0, at, 0);
    let line = 1;
    for (let i = head.indexOf(10); i !== -1 && i < got; i = head.indexOf(10, i + 1)) line++;
    where = `line ${line}`;
  }
  const names = self.names.map((n) => JSON.stringify(n)).join(" or ");
  return new TreeError(
    `${shown} (${where}) names the pack folder (${names}) by an absolute path: hcp runs a trusted pack from its own copy, and this path would reach the folder, which can be changed after hcp's check; ` +
      `name the pack's files relative to it (a program as ./file, a file a script reads from "$(dirname "$0")")`,
  );
}

const tooBig = () =>
  new TreeError(`the pack folder holds more than ${MAX_TREE_BYTES >> 20} MiB of files; hcp binds every file of a trusted pack, so keep large data outside it`);

const KINDS: [(d: Dirent) => boolean, string][] = [
  [(d) => d.isFIFO(), "a FIFO"],
  [(d) => d.isSocket(), "a socket"],
  [(d) => d.isCharacterDevice(), "a character device"],
  [(d) => d.isBlockDevice(), "a block device"],
];

/**
 * The folder at `root` (a real path) as bound. Throws TreeError when it cannot be, or (with `self`) when a file names
 * the folder by an absolute path.
 */
export function packTree(root: string, self?: SelfPaths): PackTree {
  // No prototype: a file named __proto__ is an entry like any other.
  const entries: Record<string, string> = Object.create(null) as Record<string, string>;
  // The digest is of the listing in walk order (names sorted), one line per entry.
  const hash = createHash("sha256");
  const add = (path: string, value: string) => {
    entries[path] = value;
    hash.update(`${JSON.stringify(path)} ${value}\n`);
  };
  let count = 0;
  let files = 0;
  let bytes = 0;
  const walk = (dir: string, rel: string) => {
    let listing: Dirent[];
    try {
      listing = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      throw new TreeError(`cannot list ${rel === "" ? "the pack folder" : rel}: ${systemReason(err)}`);
    }
    listing.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const d of listing) {
      const path = join(dir, d.name);
      const shown = rel === "" ? d.name : `${rel}/${d.name}`;
      if (++count > MAX_TREE_ENTRIES) {
        throw new TreeError(`the pack folder holds more than ${MAX_TREE_ENTRIES} files and folders; hcp binds every file of a trusted pack, so keep large data outside it`);
      }
      if (d.isDirectory()) {
        add(shown, "d");
        walk(path, shown);
      } else if (d.isSymbolicLink()) {
        try {
          add(shown, `l:${readlinkSync(path)}`);
        } catch (err) {
          throw new TreeError(`cannot read the link ${shown}: ${systemReason(err)}`);
        }
      } else if (d.isFile()) {
        const f = fileDigest(path, shown, MAX_TREE_BYTES - bytes, self);
        add(shown, `${f.executable ? "x" : "f"}:${f.sha256}`);
        files++;
        bytes += f.size;
      } else {
        const kind = KINDS.find(([is]) => is(d))?.[1] ?? "not a file, folder or link";
        throw new TreeError(`${shown} is ${kind}: a trusted pack folder may hold only files, folders and symbolic links`);
      }
    }
  };
  walk(root, "");
  return { sha256: hash.digest("hex"), entries, files, bytes };
}

const at = (m: Readonly<Record<string, string>>, p: string) => (Object.hasOwn(m, p) ? m[p] : undefined);

/** The paths added, removed or changed from `was` to `now`, in order. */
export function treeChanges(was: Readonly<Record<string, string>>, now: Readonly<Record<string, string>>): string[] {
  const paths = new Set([...Object.keys(was), ...Object.keys(now)]);
  return [...paths].filter((p) => at(was, p) !== at(now, p)).sort();
}
