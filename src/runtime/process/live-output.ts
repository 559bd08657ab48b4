// A child's output as it arrives, masked (§12): each complete line is masked and passed on at once; a partial
// line waits for its end or the end of the run. Only the bytes the run keeps (max_output_bytes) are passed on.

import { StringDecoder } from "node:string_decoder";
import { cutTruncatedTail, redactText, type SecretSet } from "../secrets/redact.js";

type Stream = "stdout" | "stderr";

/**
 * One arrival of output: the masked text that became complete (may be empty) and each stream's bytes so far, as shown
 * (masked; bytes past the cap as written): a count of the bytes written would tell a masked secret's length.
 */
export interface OutputEvent {
  stream: Stream;
  text: string;
  stdout_bytes: number;
  stderr_bytes: number;
}

export type OutputListener = (event: OutputEvent) => void;

export class LiveOutput {
  private readonly decoders = { stdout: new StringDecoder("utf8"), stderr: new StringDecoder("utf8") };
  private readonly pending = { stdout: "", stderr: "" };
  /** Bytes of masked text passed on, bytes kept (raw) and bytes written past the cap, per stream. */
  private readonly shown = { stdout: 0, stderr: 0 };
  private readonly kept = { stdout: 0, stderr: 0 };
  private readonly dropped = { stdout: 0, stderr: 0 };
  /** A secret spanning lines cannot be masked line by line: then everything waits for the end of the run. */
  private readonly wholeOnly: boolean;

  constructor(
    private readonly secrets: SecretSet,
    private readonly listener: OutputListener,
  ) {
    this.wholeOnly = secrets.secrets.some((s) => s.includes("\n") || s.includes("\r"));
  }

  push(stream: Stream, kept: Buffer, totalBytes: number): void {
    this.kept[stream] += kept.length;
    this.dropped[stream] = totalBytes - this.kept[stream];
    const text = this.pending[stream] + this.decoders[stream].write(kept);
    const cut = this.wholeOnly ? -1 : text.lastIndexOf("\n");
    this.pending[stream] = text.slice(cut + 1);
    this.emit(stream, cut < 0 ? "" : redactText(text.slice(0, cut + 1), this.secrets));
  }

  /**
   * Passes on what is left. A stream cut at the cap loses the tail of its last partial line as the result
   * does (§12): only there can the cut have split a secret, since lines already passed on were complete.
   */
  end(truncated: { stdout: boolean; stderr: boolean }): void {
    for (const stream of ["stdout", "stderr"] as const) {
      const rest = this.pending[stream] + this.decoders[stream].end();
      this.pending[stream] = "";
      const masked = redactText(truncated[stream] ? cutTruncatedTail(rest, this.secrets) : rest, this.secrets);
      if (masked !== "") this.emit(stream, masked);
    }
  }

  private emit(stream: Stream, text: string): void {
    this.shown[stream] += Buffer.byteLength(text);
    const { shown, dropped } = this;
    this.listener({ stream, text, stdout_bytes: shown.stdout + dropped.stdout, stderr_bytes: shown.stderr + dropped.stderr });
  }
}
