// A /proc file read again and again (the watch's counters: fork-count.ts, pid-cursor.ts), kept open: a read at
// offset 0 makes its text anew, so each reading is one `pread` instead of an `open`, a `read` and a `close`.

import { closeSync, openSync, readSync } from "node:fs";

export class KeptOpenProcFile {
  /** Open (close-on-exec, as Node opens every file) once read; closed after a failed read, opened again at the next. */
  private fd: number | undefined;

  constructor(private readonly path: string) {}

  /** Reads the file's text from its start into `buffer`; the number of bytes read. Throws what the read throws. */
  read(buffer: Buffer): number {
    try {
      this.fd ??= openSync(this.path, "r");
      return readSync(this.fd, buffer, 0, buffer.length, 0);
    } catch (err) {
      const fd = this.fd;
      this.fd = undefined;
      if (fd !== undefined) {
        try {
          closeSync(fd);
        } catch {
          // not open any more
        }
      }
      throw err;
    }
  }
}
