// Newline-delimited input: lines read with a size cap (a longer line is skipped as it arrives, never buffered whole).

/** Bytes kept of an oversized line's beginning and end, enough to find a request id. */
const EDGE = 256;

/** One line (without its `\n` or `\r\n`), or the report of a line longer than the cap, with its first and last bytes. */
export type Line = { text: string } | { tooLong: { bytes: number; head: string; tail: string } };

/** Splits chunks into lines of at most `max` bytes. */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  /** While a line over the cap is being skipped: its byte count and edges so far. */
  private skipping: { bytes: number; head: Buffer; tail: Buffer } | undefined;

  constructor(private readonly max: number) {}

  /** The lines this chunk completes. */
  push(chunk: Buffer): Line[] {
    const out: Line[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      if (this.size === 0 && this.skipping === undefined && nl - start <= this.max) {
        // A whole line within this chunk (the usual case): decoded where it is, without copying it first.
        out.push({ text: chunk.toString("utf8", start, nl > start && chunk[nl - 1] === 13 ? nl - 1 : nl) });
      } else {
        this.add(chunk.subarray(start, nl));
        out.push(this.take());
      }
      start = nl + 1;
    }
    if (start < chunk.length) this.add(chunk.subarray(start));
    return out;
  }

  /** The last line, when the input ended without a newline after it. */
  end(): Line[] {
    return this.size > 0 || this.skipping !== undefined ? [this.take()] : [];
  }

  private add(part: Buffer): void {
    if (part.length === 0) return;
    if (this.skipping === undefined && this.size + part.length > this.max) {
      const all = Buffer.concat([...this.parts, part]);
      this.skipping = { bytes: all.length, head: Buffer.from(all.subarray(0, EDGE)), tail: Buffer.from(all.subarray(-EDGE)) };
      this.parts = [];
      this.size = 0;
      return;
    }
    if (this.skipping !== undefined) {
      this.skipping.bytes += part.length;
      if (this.skipping.head.length < EDGE) this.skipping.head = Buffer.concat([this.skipping.head, part.subarray(0, EDGE - this.skipping.head.length)]);
      this.skipping.tail = Buffer.from(Buffer.concat([this.skipping.tail, part.subarray(-EDGE)]).subarray(-EDGE));
      return;
    }
    this.parts.push(Buffer.from(part));
    this.size += part.length;
  }

  private take(): Line {
    const skipped = this.skipping;
    if (skipped !== undefined) {
      this.skipping = undefined;
      return { tooLong: { bytes: skipped.bytes, head: skipped.head.toString("utf8"), tail: skipped.tail.toString("utf8").replace(/\r$/, "") } };
    }
    const text = Buffer.concat(this.parts, this.size).toString("utf8").replace(/\r$/, "");
    this.parts = [];
    this.size = 0;
    return { text };
  }
}
