// linkSignals: a call's signal follows the client's and the server's, and is let go of once the call is answered,
// so that a long-running server keeps nothing per call on its own stop signal.

import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { test } from "node:test";
import { linkSignals } from "../../src/transports/abort.js";

test("the linked signal aborts with the reason of whichever source aborts first", () => {
  for (const which of [0, 1]) {
    const sources = [new AbortController(), new AbortController()];
    const linked = linkSignals(sources.map((c) => c.signal));
    assert.equal(linked.signal.aborted, false);
    sources[which]!.abort(`reason ${which}`);
    assert.equal(linked.signal.aborted, true);
    assert.equal(linked.signal.reason, `reason ${which}`);
    sources[1 - which]!.abort("later");
    assert.equal(linked.signal.reason, `reason ${which}`);
    for (const s of sources) assert.equal(getEventListeners(s.signal, "abort").length, 0);
  }
});

test("a source already aborted aborts the linked signal at once", () => {
  const stop = new AbortController();
  stop.abort("stopping");
  const linked = linkSignals([new AbortController().signal, stop.signal]);
  assert.equal(linked.signal.aborted, true);
  assert.equal(linked.signal.reason, "stopping");
});

test("once released, the linked signal holds no listener on its sources and no longer follows them", () => {
  const stop = new AbortController();
  for (let i = 0; i < 1000; i++) linkSignals([new AbortController().signal, stop.signal]).release();
  assert.equal(getEventListeners(stop.signal, "abort").length, 0);
  const linked = linkSignals([stop.signal]);
  linked.release();
  stop.abort();
  assert.equal(linked.signal.aborted, false);
});
