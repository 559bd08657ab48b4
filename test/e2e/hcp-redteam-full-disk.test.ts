// A full disk under the state directory (a verb that writes files can fill it): an approved plan runs only when its
// use is recorded, so that it never runs twice, and a dry run that cannot record its plan issues no id; each is told
// as `state_unavailable` naming the disk, not an internal error, and leaves no half-written file. Needs root, to
// mount a small tmpfs for the state directory.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../transports/support.js";
import { bank, jsonError, planIdOf } from "./approvals-support.js";

const pay = (root: string, amount = "10") => ["run", root, "pay", "--arg", `amount=${amount}`, "--allow-write"];

/** Every file under `dir`, by its path below it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

test("attack: a full disk under the state directory: an approved plan whose use cannot be recorded does not run (and runs once when it can), a dry run issues no id; each is state_unavailable naming the disk, and no half-written file is left", async (t) => {
  const disk = join(tempDir("hcp-full-disk-"), "state");
  mkdirSync(disk);
  if (process.getuid?.() !== 0 || spawnSync("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", disk]).status !== 0) {
    t.skip("needs root, to mount a small tmpfs for the state directory");
    return;
  }
  try {
    const b = bank({ env: { XDG_STATE_HOME: disk } });
    const id = planIdOf(await b.hcp([...pay(b.root), "--dry-run", "--json"]));
    assert.equal((await b.approve(id)).code, 0);

    // The disk fills up (pages of tmpfs: a file larger than what is left, cut where it ends).
    spawnSync("dd", ["if=/dev/zero", `of=${join(disk, "fill")}`, "bs=4k", "count=1000"]);
    const before = filesUnder(disk);
    const refused = await b.hcp([...pay(b.root), "--confirm", id, "--json"]);
    assert.equal(refused.code, 4, refused.stderr);
    assert.deepEqual(jsonError(refused).code, "state_unavailable");
    assert.match(jsonError(refused).error, /^cannot write \S+ in hcp's state directory: no space left on device$/);
    assert.equal(b.runs().length, 0, "an approved plan whose use was not recorded did not run");

    const dry = await b.hcp([...pay(b.root, "20"), "--dry-run", "--json"]);
    assert.equal(dry.code, 4, dry.stderr);
    assert.equal(jsonError(dry).code, "state_unavailable");
    assert.match(jsonError(dry).error, /no space left on device/);
    assert.doesNotMatch(dry.stdout + dry.stderr, /hcp1\./, "no plan id is issued for a plan not recorded");
    assert.deepEqual(filesUnder(disk), before, "nothing half-written is left in the state directory");

    // Room again: the same approved id runs, once.
    rmSync(join(disk, "fill"));
    const ran = await b.hcp([...pay(b.root), "--confirm", id]);
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal((await b.hcp([...pay(b.root), "--confirm", id])).code, 4);
    assert.deepEqual(b.runs().map((r) => r.argv.slice(-2)), [["pay", "10"]]);
  } finally {
    spawnSync("umount", ["-l", disk]);
  }
});
