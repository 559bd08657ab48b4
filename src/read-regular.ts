// Reading an input file that must be a regular file of bounded size (pack and credential files),
// without ever blocking on a FIFO or reading a device.

import { systemReason } from "./errno.js";
import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from "node:fs";

/** Why a file could not be read: `reason` completes "cannot read <file>: …". */
export class FileReadError extends Error {
  override name = "FileReadError";
  constructor(
    /** The errno code (ENOENT, EACCES…), or `not_regular` / `too_large`. */
    readonly code: string,
    readonly reason: string,
  ) {
    super(reason);
  }
}

const KIND_OF: [(s: Stats) => boolean, string][] = [
  [(s) => s.isDirectory(), "a directory"],
  [(s) => s.isFIFO(), "a FIFO"],
  [(s) => s.isCharacterDevice(), "a character device"],
  [(s) => s.isBlockDevice(), "a block device"],
  [(s) => s.isSocket(), "a socket"],
];

function notRegular(s: Stats): FileReadError | undefined {
  if (s.isFile()) return undefined;
  const kind = KIND_OF.find(([is]) => is(s))?.[1] ?? "not a regular file";
  return new FileReadError("not_regular", `it is ${kind}, not a regular file`);
}

function sizeLimit(maxBytes: number): string {
  return maxBytes % (1 << 20) === 0 ? `${maxBytes >> 20} MiB` : `${maxBytes} bytes`;
}

/** A system error as a FileReadError; a FileReadError, or what a `check` threw, goes on as it is. */
function fail(e: unknown): never {
  const err = e as NodeJS.ErrnoException;
  if (e instanceof FileReadError || typeof err.errno !== "number") throw e;
  throw new FileReadError(err.code ?? "EIO", systemReason(err));
}

/**
 * Opens a regular file of at most `maxBytes` bytes. Anything else (a FIFO, a device, a directory, a bigger file) is
 * refused with a FileReadError and never blocks: the path is stat'ed before it is opened, it is opened O_NONBLOCK, and
 * the opened file is fstat'ed again (the file checked is the file read). `check` sees that fstat and may throw to
 * refuse the file (its owner, its mode). The caller closes the descriptor.
 */
function openRegular(path: string, maxBytes: number, check?: (opened: Stats) => void): { fd: number; opened: Stats } {
  let fd: number;
  try {
    const before = notRegular(statSync(path));
    if (before) throw before;
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    return fail(e);
  }
  try {
    const opened = fstatSync(fd);
    const after = notRegular(opened);
    if (after) throw after;
    if (opened.size > maxBytes) throw tooLarge(maxBytes);
    check?.(opened);
    return { fd, opened };
  } catch (e) {
    closeSync(fd);
    return fail(e);
  }
}

const tooLarge = (maxBytes: number) => new FileReadError("too_large", `it is larger than the ${sizeLimit(maxBytes)} limit`);

/** Reads a regular file of at most `maxBytes` bytes, refused as openRegular refuses it. */
export function readRegularFile(path: string, maxBytes: number, check?: (opened: Stats) => void): Buffer {
  const { fd, opened } = openRegular(path, maxBytes, check);
  try {
    // Read one byte past the limit: a file that grew after the fstat is refused too.
    const buf = Buffer.alloc(Math.min(opened.size, maxBytes) + 1);
    let n = 0;
    while (n < buf.length) {
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
    }
    if (n > maxBytes) throw tooLarge(maxBytes);
    return buf.subarray(0, n);
  } catch (e) {
    return fail(e);
  } finally {
    closeSync(fd);
  }
}

/**
 * The SHA-256 (hex) of a regular file of at most `maxBytes` bytes, refused as openRegular refuses it. Read and hashed
 * 1 MiB at a time: a program of 100 MB is never held whole (its buffer alone, zeroed and faulted in, took four times
 * as long as hashing it in pieces).
 */
export function sha256OfRegularFile(path: string, maxBytes: number): string {
  const { fd } = openRegular(path, maxBytes);
  try {
    const hash = createHash("sha256");
    const piece = Buffer.allocUnsafe(1 << 20);
    let total = 0;
    for (;;) {
      const got = readSync(fd, piece, 0, piece.length, null);
      if (got === 0) return hash.digest("hex");
      total += got;
      // A file that grew after the fstat is refused too.
      if (total > maxBytes) throw tooLarge(maxBytes);
      hash.update(piece.subarray(0, got));
    }
  } catch (e) {
    return fail(e);
  } finally {
    closeSync(fd);
  }
}
