// The search for a pack folder's own path in its files, read in pieces: a name across the seam of two reads, or in a
// short last read after many long ones, is found where a search of the whole text finds it, and only there.

import { test } from "node:test";
import assert from "node:assert/strict";
import { selfPaths } from "../../src/runtime/trust/pack-self-paths.js";

const PIECE = 64 << 10; // what pack-tree.ts reads at a time

/** Feeds `text` to a scan in pieces of `piece` bytes, reusing one buffer as pack-tree.ts does; the offset found, if any. */
function scan(root: string, text: Buffer, piece: number): number | undefined {
  const file = selfPaths(root).file();
  const buffer = Buffer.alloc(piece);
  for (let at = 0; ; at += piece) {
    const got = text.copy(buffer, 0, at, at + piece);
    const found = file.feed(buffer.subarray(0, got), got < piece);
    if (found !== undefined || got < piece) return found;
  }
}

test("a file's scan finds the pack folder's path at every offset around the seams of its reads, as the whole text does", () => {
  const root = "/srv/packs/ledger";
  const size = 3 * PIECE + 100;
  for (const at of [0, 1, PIECE - root.length, PIECE - root.length + 1, PIECE - 1, PIECE, PIECE + 7, 2 * PIECE - 3, 3 * PIECE - 1, size - root.length]) {
    const text = Buffer.alloc(size, "x");
    text.write(` ${root} `.slice(at === 0 ? 1 : 0, at >= size - root.length ? -1 : undefined), at === 0 ? 0 : at - 1, "latin1");
    assert.equal(scan(root, text, PIECE), at, `at ${at}`);
    // The same in small pieces, shorter than what a scan keeps of the last read.
    assert.equal(scan(root, text, 1000), at, `at ${at}, in pieces of 1000`);
  }
});

test("a file's scan finds no path that is not the folder's: a longer name, a sibling, nothing", () => {
  const root = "/srv/packs/ledger";
  for (const other of ["/srv/packs/ledger2", "/srv/packs/ledge", "/srv/pack/ledger"]) {
    const text = Buffer.alloc(2 * PIECE + 5, "x");
    text.write(` ${other} `, PIECE - 6, "latin1");
    assert.equal(scan(root, text, PIECE), undefined, other);
  }
  assert.equal(scan(root, Buffer.alloc(5 * PIECE, "y"), PIECE), undefined);
  assert.equal(scan(root, Buffer.alloc(0), PIECE), undefined);
});
