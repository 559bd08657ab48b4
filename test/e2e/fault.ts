// A fault hcp did not foresee (a bug), raised outside any request's handling while a run is in flight: preloaded into
// the built hcp from outside (test/fixtures/fault-when-running.cjs), as an exception thrown from a timer or as a
// rejection nothing handles. Left to Node, either ended the process at once: a stack trace, the call unanswered.

import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO } from "./helpers.js";

export const FAULTS = ["throw", "reject"] as const;

/** The environment that preloads the fault (`fault`: one of FAULTS) into hcp. */
export const faultWhenRunning = (fault: (typeof FAULTS)[number]) => ({ NODE_OPTIONS: `--require ${join(REPO, "test/fixtures/fault-when-running.cjs")}`, FAULT: fault });

/** The operator's one line: the error's kind and where it was thrown, never its text (it may quote a secret); no stack trace. */
export function assertFaultReported(stderr: string): void {
  assert.doesNotMatch(stderr, /\n\s+at |node:internal|Unhandled/, stderr);
  assert.match(stderr, /^Error: internal error in hcp \(TypeError at \S+fault-when-running\.cjs:\d+:\d+; its text is not shown, as it may hold a secret\): stopping as on SIGTERM/m);
  assert.doesNotMatch(stderr, /sk-fault-SECRET|fault text/);
}
