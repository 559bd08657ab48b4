// Node's system errors in plain words: "not a directory", never "ENOTDIR: not a directory, open '/x/y'".

const WORDS: Readonly<Record<string, string>> = {
  ENOENT: "no such file",
  ENOTDIR: "a part of the path is not a directory",
  EISDIR: "is a directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EEXIST: "already exists",
  ENOTEMPTY: "folder is not empty",
  ENOSPC: "no space left on device",
  EROFS: "read-only file system",
  ELOOP: "too many levels of symbolic links",
  ENAMETOOLONG: "file name too long",
  EMFILE: "too many open files",
  EBUSY: "resource busy",
  EIO: "input/output error",
  EADDRINUSE: "address already in use (another program listens there)",
  EADDRNOTAVAIL: "no interface of this machine has that address",
};

/** Why a file operation failed, in words; a non-system error keeps its first line. */
export function systemReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (typeof code === "string" && code in WORDS) return WORDS[code]!;
  if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return `system error ${code}`;
  return (err instanceof Error ? err.message : String(err)).split("\n")[0]!;
}

/** Why an open that does not follow links (O_NOFOLLOW) failed, in words: there ELOOP is the link itself, not a loop. */
export function noFollowReason(err: unknown): string {
  return (err as NodeJS.ErrnoException | null)?.code === "ELOOP" ? "it is a symbolic link; it must be a regular file" : systemReason(err);
}
