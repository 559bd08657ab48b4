// Request lines read ahead of their handling, a bounded amount of them: the input is paused once they weigh more than
// READ_AHEAD_BYTES. A server that holds back new requests (backpressure on a client that does not read its answers)
// takes lines from here only when it may, and still sees the end of its input when a client ends it after a few
// requests, so that it can shut down.

import { LineSplitter, type Line } from "./lines.js";

/** What the lines read and not yet handled may weigh before the input is paused. */
export const READ_AHEAD_BYTES = 1024 * 1024;

/** What a line held here weighs: its text, or the edges kept of one too long. */
const weightOf = (line: Line) => ("text" in line ? line.text.length : 1024);

export class Intake {
  private lines: (Line | undefined)[] = [];
  private head = 0;
  private bytes = 0;
  private listener: () => void = () => {};
  private failure: Error | undefined;
  private readonly splitter: LineSplitter;
  /** Whether the input has ended (lines read before its end may still wait here). */
  ended = false;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    maxLine: number,
    private readonly readAhead = READ_AHEAD_BYTES,
  ) {
    this.splitter = new LineSplitter(maxLine);
    input.on("data", this.ondata);
    input.on("error", this.onerror);
    input.once("end", this.onend);
  }

  /** Called whenever lines arrive or the input ends (one listener: the server's). */
  onReady(listener: () => void): void {
    this.listener = listener;
  }

  /** Lines waiting to be handled. */
  get size(): number {
    return this.lines.length - this.head;
  }

  /** The next line read, if one waits; reading goes on once what waits is back within the bound. */
  shift(): Line | undefined {
    if (this.head === this.lines.length) return undefined;
    const line = this.lines[this.head]!;
    this.lines[this.head++] = undefined;
    if (this.head === this.lines.length) {
      this.lines = [];
      this.head = 0;
    }
    this.bytes -= weightOf(line);
    if (this.bytes <= this.readAhead && !this.ended) this.input.resume();
    return line;
  }

  /** Forgets the lines waiting (a server that stops answers none of them). */
  drop(): void {
    this.lines = [];
    this.head = 0;
    this.bytes = 0;
  }

  /** The next line, waiting for one; undefined at the end of input or once `signal` aborts. Throws the input's error. */
  async next(signal?: AbortSignal): Promise<Line | undefined> {
    for (;;) {
      if (signal?.aborted) return undefined;
      if (this.failure !== undefined) throw this.failure;
      const line = this.shift();
      if (line !== undefined) return line;
      if (this.ended) return undefined;
      await new Promise<void>((resolve) => {
        const done = () => {
          signal?.removeEventListener("abort", done);
          this.listener = () => {};
          resolve();
        };
        this.listener = done;
        signal?.addEventListener("abort", done, { once: true });
      });
    }
  }

  /** Stops reading. */
  close(): void {
    this.input.off("data", this.ondata);
    this.input.off("error", this.onerror);
    this.input.off("end", this.onend);
    if (this.input.listenerCount("data") === 0) this.input.pause();
  }

  private add(line: Line): void {
    this.lines.push(line);
    this.bytes += weightOf(line);
  }

  private readonly ondata = (chunk: Buffer | string) => {
    for (const line of this.splitter.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk)) this.add(line);
    if (this.bytes > this.readAhead) this.input.pause();
    this.listener();
  };

  private readonly onend = () => {
    for (const line of this.splitter.end()) this.add(line);
    this.ended = true;
    this.listener();
  };

  private readonly onerror = (error: Error) => {
    this.failure = error;
    this.listener();
  };
}
