// Which commands of a cobra CLI `hcp init --from-cobra` makes reads by their names alone: the rest are writes a person
// approves, so a name taken for a read must be one no CLI uses for a change.

import assert from "node:assert/strict";
import { test } from "node:test";
import { readsByName } from "../../../src/cli/hcp/init-cobra.js";

test("reads by name: gh's pr diff and pr checks and the commands of its search group, helm's search repo, kubectl's get and diff, docker's ps and search, rclone's listings and sums, restic's snapshots, etcdctl's endpoint health, podman's port, exists and system df, buildah's containers", () => {
  const reads = [["pr", "diff"], ["pr", "checks"], ["search", "issues"], ["search", "repos"], ["search", "repo"], ["get"], ["diff"], ["ps"], ["search"], ["config", "view"], ["apply", "view-last"]];
  reads.push(["lsjson"], ["lsd"], ["md5sum"], ["size"], ["listremotes"], ["snapshots"], ["stats"], ["endpoint", "health"], ["container", "port"], ["container", "exists"], ["system", "df"], ["containers"]);
  for (const path of reads) assert.equal(readsByName(path), true, path.join(" "));
});

test("writes: every other name, a group's own name, a command below a read group's subgroup, and a name that reads in one CLI but not in another", () => {
  const writes = [["pr", "merge"], ["pr", "create"], ["repo", "delete"], ["secret", "set"], ["pr"], ["apply"], ["search", "index", "create"], ["index", "search", "delete", "all"], ["login"]];
  // Names that read in one CLI and not in another: restic's `cat masterkey` prints its key, etcdctl's `check perf`
  // writes to the cluster, kubectl's `set env` changes a deployment; a `list` group may be one of lists.
  writes.push(["cat"], ["check", "perf"], ["check"], ["set", "env"], ["list", "delete"], ["list", "drafts"]);
  for (const path of writes) assert.equal(readsByName(path), false, path.join(" "));
});
