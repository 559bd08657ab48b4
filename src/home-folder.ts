// The user's home folder, as os.homedir() tells it ($HOME, else the password database's), with the password
// database read once: a process out of file descriptors cannot read /etc/passwd, and a server must still find the
// folders under the home folder then (where its credential file is, as each answer is masked). Without $HOME, a user
// the database does not know (a container's arbitrary uid) is told what to set rather than libuv's error.

import { userInfo } from "node:os";

let fromDatabase: string | undefined;

/**
 * $HOME, else the home folder the password database gives this process's user; throws saying what to set: HOME, or
 * `instead`, the variable that sets the place wanted under it.
 */
export function homeFolder(instead?: string): string {
  const home = process.env["HOME"];
  if (home) return home;
  if (fromDatabase === undefined) {
    try {
      fromDatabase = userInfo().homedir;
    } catch (err) {
      const why = (err as NodeJS.ErrnoException).message.replace(/^A system error occurred: /, "");
      const set = instead === undefined ? "HOME" : `HOME or ${instead}`;
      throw new Error(`cannot tell your home folder: HOME is not set, and the password database gives none for user ${process.getuid?.() ?? "?"} (${why}); set ${set}`, { cause: err });
    }
  }
  return fromDatabase;
}

/** The home folder, or undefined where homeFolder() cannot tell it: for what only sets the home folder apart. */
export function knownHomeFolder(): string | undefined {
  try {
    return homeFolder();
  } catch {
    return undefined;
  }
}
