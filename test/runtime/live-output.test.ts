// LiveOutput: streamed output is masked line by line, a secret split across chunks included; a cut tail is dropped.

import assert from "node:assert/strict";
import { test } from "node:test";
import { LiveOutput, type OutputEvent } from "../../src/runtime/process/live-output.js";
import { secretSet } from "../../src/runtime/secrets/redact.js";

function collect(secrets: string[]) {
  const events: OutputEvent[] = [];
  const live = new LiveOutput(secretSet(secrets), (e) => events.push(e));
  const text = (stream: "stdout" | "stderr") => events.filter((e) => e.stream === stream).map((e) => e.text).join("");
  return { live, events, text };
}

test("a secret arriving in pieces is masked; complete lines pass at once, a partial line waits; the bytes counted are those shown", () => {
  const { live, events, text } = collect(["s3cr3t-token"]);
  let total = 0;
  const push = (s: string) => live.push("stdout", Buffer.from(s), (total += Buffer.byteLength(s)));
  push("one\ntoken: s3cr");
  assert.equal(text("stdout"), "one\n", "the partial line is held");
  push("3t-token and more\ntwo");
  assert.equal(text("stdout"), "one\ntoken: *** and more\n");
  live.end({ stdout: false, stderr: false });
  assert.equal(text("stdout"), "one\ntoken: *** and more\ntwo");
  // The count is of the text shown: a count of the bytes written would tell the secret's length.
  assert.equal(events.at(-1)!.stdout_bytes, Buffer.byteLength(text("stdout")));
  assert.equal(total - events.at(-1)!.stdout_bytes, "s3cr3t-token".length - "***".length);
});

test("a multi-byte character split across chunks is decoded whole", () => {
  const { live, text } = collect([]);
  const bytes = Buffer.from("é\n");
  live.push("stderr", bytes.subarray(0, 1), 1);
  live.push("stderr", bytes.subarray(1), 3);
  assert.equal(text("stderr"), "é\n");
});

test("a secret spanning lines holds everything until the end; a cut stream loses its tail", () => {
  const multi = collect(["line1\nline2"]);
  multi.live.push("stdout", Buffer.from("a line1\nline2 b\n"), 16);
  assert.equal(multi.text("stdout"), "");
  multi.live.end({ stdout: false, stderr: false });
  assert.equal(multi.text("stdout"), "a *** b\n");

  const cut = collect(["abcdefgh"]);
  cut.live.push("stdout", Buffer.from("ok\nabcd"), 7);
  cut.live.end({ stdout: true, stderr: false });
  assert.ok(!cut.text("stdout").includes("abcd"), "a secret's beginning at the cut never shows");
});
