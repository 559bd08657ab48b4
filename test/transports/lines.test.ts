// LineSplitter: lines across any chunking, CRLF, and lines over the cap reported (with their edges) instead of kept.

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { LineSplitter, type Line } from "../../src/transports/lines.js";

function split(chunks: Buffer[], max: number): Line[] {
  const s = new LineSplitter(max);
  return [...chunks.flatMap((c) => s.push(c)), ...s.end()];
}

/** The input cut at the given offsets. */
const cut = (data: Buffer, at: number[]) => {
  const points = [...new Set(at.map((n) => n % (data.length + 1)))].sort((a, b) => a - b);
  return [0, ...points].map((p, i) => data.subarray(p, points[i] ?? data.length));
};

test("lines come out the same however the input is chunked; \\r\\n ends a line like \\n", () => {
  fc.assert(
    fc.property(fc.array(fc.string({ unit: "grapheme", maxLength: 20 }).map((s) => s.replace(/[\r\n]/g, "")), { maxLength: 8 }), fc.array(fc.nat()), fc.boolean(), (lines, at, crlf) => {
      const data = Buffer.from(lines.map((l) => l + (crlf ? "\r\n" : "\n")).join(""));
      assert.deepEqual(split(cut(data, at), 1000), lines.map((text) => ({ text })));
    }),
  );
});

test("a line over the cap is reported once, with its size, first and last bytes, and the next line is intact", () => {
  const long = `{"id": 5, ${"x".repeat(5000)} "end": 1}`;
  const data = Buffer.from(`short\n${long}\r\nnext\n${"y".repeat(101)}`);
  for (const size of [1, 7, 64, 10_000]) {
    const chunks = Array.from({ length: Math.ceil(data.length / size) }, (_, i) => data.subarray(i * size, (i + 1) * size));
    const out = split(chunks, 100);
    assert.deepEqual(out[0], { text: "short" });
    assert.deepEqual(out[1], { tooLong: { bytes: long.length + 1, head: long.slice(0, 256), tail: long.slice(-255) } });
    assert.deepEqual(out[2], { text: "next" });
    assert.deepEqual(out[3], { tooLong: { bytes: 101, head: "y".repeat(101), tail: "y".repeat(101) } });
    assert.equal(out.length, 4);
  }
});

test("any bytes (invalid UTF-8, a lone \\r) give the same lines read whole as read one byte at a time", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 64 }), fc.array(fc.constantFrom(10, 13, 0xc3, 0xe2, 0x80, 0xff), { maxLength: 6 }), (bytes, extra) => {
      const data = Buffer.from([...bytes, ...extra, 10]);
      const bytewise = [...data].map((b) => Buffer.from([b]));
      assert.deepEqual(split([data], 1000), split(bytewise, 1000));
    }),
  );
});
