// Reading an input file that must be a regular file of bounded size (pack and credential files),
// without ever blocking on a FIFO or reading a device.

import { systemReason } from "./errno.js";
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
 * Reads a regular file of at most `maxBytes` bytes. Anything else (a FIFO, a device, a directory, a
 * bigger file) is refused with a FileReadError and never blocks: the path is stat'ed before it is
 * opened, it is opened O_NONBLOCK, and the opened file is fstat'ed again (the file checked is the file
 * read). `check` sees that fstat and may throw to refuse the file (its owner, its mode).
 */
export function readRegularFile(path: string, maxBytes: number, check?: (opened: Stats) => void): Buffer {
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
    if (opened.size > maxBytes) throw new FileReadError("too_large", `it is larger than the ${sizeLimit(maxBytes)} limit`);
    check?.(opened);
    // Read one byte past the limit: a file that grew after the fstat is refused too.
    const buf = Buffer.alloc(Math.min(opened.size, maxBytes) + 1);
    let n = 0;
    while (n < buf.length) {
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
    }
    if (n > maxBytes) throw new FileReadError("too_large", `it is larger than the ${sizeLimit(maxBytes)} limit`);
    return buf.subarray(0, n);
  } catch (e) {
    return fail(e);
  } finally {
    closeSync(fd);
  }
}
