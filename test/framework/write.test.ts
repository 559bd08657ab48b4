import { test } from "node:test";
import assert from "node:assert/strict";
import { writeInSlices } from "../../src/framework/app.js";

const LONE_SURROGATE = /^[\udc00-\udfff]|[\ud800-\udbff]$/;

/** A stream that keeps each write. */
function recorder() {
  const writes: string[] = [];
  return { writes, stream: { write: (chunk: string) => writes.push(chunk) } as unknown as NodeJS.WritableStream };
}

test("a large output is written in slices that never split a surrogate pair and together are the text", () => {
  const MiB = 1 << 20;
  for (const shift of [0, 1]) {
    // An astral character straddles each slice boundary, for one of the two shifts.
    const text = "x".repeat(MiB - 1 + shift) + "\u{1F600}".repeat(MiB) + "end";
    const { writes, stream } = recorder();
    writeInSlices(stream, text);
    assert.ok(writes.length > 2);
    assert.equal(writes.join(""), text);
    for (const w of writes) assert.doesNotMatch(w, LONE_SURROGATE, `slice of ${w.length} ends or starts inside a pair`);
  }
  const { writes, stream } = recorder();
  writeInSlices(stream, "short");
  assert.deepEqual(writes, ["short"]);
});
