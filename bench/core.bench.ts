// Core benchmarks: projecting a 10,000-command manifest, and `rungrad --version` start-up.

import { fromManifest } from "../src/agentmeta/project.js";
import { stableJSON } from "../src/json/stable.js";
import { parseManifest } from "../src/manifest/decode.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mib, ms, ratio, report, REPO, timeAndMemory, timeCommands, timeSync } from "./lib.js";

const flag = (name: string, type = "bool") => ({
  name,
  shorthand: "",
  usage: `Usage of --${name}`,
  default: type === "bool" ? "false" : "",
  type,
  required: false,
});

/** A manifest with `count` commands: groups of ten leaves, flags, examples and an extension each. */
function generatedManifestText(count: number): string {
  const commands: unknown[] = [
    { path: [], use: "big", short: "Big tool", examples: [], related: [], output_modes: [], requires_auth: false, mutates: false, supports_dry_run: false, destructive: false, requires_confirmation: false, supports_meta: false, local_flags: [] },
  ];
  for (let i = 1; i < count; i++) {
    const group = `group${Math.floor((i - 1) / 10)}`;
    const leaf = (i - 1) % 10 === 0;
    const path = leaf ? [group] : [group, `cmd${i}`];
    const name = path[path.length - 1]!;
    const mutates = i % 3 === 0;
    commands.push({
      path,
      use: leaf ? name : `${name} <name> [more]`,
      short: `Command ${i} <with> & markup`,
      examples: [`big ${path.join(" ")} thing --json`],
      related: [`big ${group}`],
      output_modes: ["table", "json"],
      requires_auth: i % 2 === 0,
      mutates,
      supports_dry_run: mutates,
      destructive: i % 7 === 0,
      requires_confirmation: i % 7 === 0,
      supports_meta: false,
      local_flags: [flag("force"), { ...flag("name", "string"), required: i % 5 === 0 }],
      extensions: { "example.com/big": { owner: "platform", weight: 1.5, tags: ["a", "b"] } },
    });
  }
  return JSON.stringify({
    schema_version: "rungrad-manifest/1",
    spec_version: "rungrad-spec/1",
    tool_name: "big",
    tool_version: "v1.0.0",
    global_flags: [flag("dry-run"), flag("json"), flag("no-prompt"), flag("config", "string")],
    commands,
  });
}

export function run(): void {
  const text = generatedManifestText(10_000);
  // The floor reads the text and writes it indented, as StableJSON must (Go's MarshalIndent).
  const floor = timeSync(() => JSON.stringify(JSON.parse(text), null, 2), 20);
  const projection = timeSync(() => stableJSON(fromManifest(parseManifest(text))), 20);
  report(`Projection of a 10,000-command manifest (${(text.length / 1e6).toFixed(1)} MB), p50 of 20 runs`, [
    ["JSON.parse + JSON.stringify(v, null, 2) (floor)", ms(floor.p50)],
    ["parseManifest + fromManifest + stableJSON", `${ms(projection.p50)}  ${ratio(projection.p50, floor.p50)} of the floor (aim: within 3x)`],
  ]);

  documentScaling();

  const startup = timeCommands(
    {
      node: [process.execPath, "-e", "0"],
      rungrad: [process.execPath, `${REPO}dist/bin/rungrad.cjs`, "--version"],
    },
    30,
  );
  report("Start-up, p50 of 30 runs (spawn to exit)", [
    ["node -e 0 (baseline)", ms(startup["node"]!.p50)],
    [
      "rungrad --version",
      `${ms(startup["rungrad"]!.p50)}  +${ms(startup["rungrad"]!.p50 - startup["node"]!.p50)} over node, ${ratio(startup["rungrad"]!.p50, startup["node"]!.p50)} (aim: within 20 ms)`,
    ],
  ]);
}

/**
 * `rungrad agentmeta FILE` (default output, not a terminal) and `--json` as processes, from 1,000 to
 * 100,000 commands, next to a node script that JSON.parses the file and writes JSON.stringify(v, null, 2):
 * median wall time and median peak RSS, with their ratios (aims: default ≤ 3x and --json ≤ 2.5x the
 * time, both ≤ 2x the memory, at every size).
 */
function documentScaling(): void {
  const dir = mkdtempSync(join(tmpdir(), "rungrad-bench-"));
  const rows: [string, string][] = [];
  try {
    for (const [count, runs] of [[1_000, 5], [10_000, 5], [100_000, 3]] as const) {
      const file = join(dir, `manifest-${count}.json`);
      writeFileSync(file, generatedManifestText(count));
      const m = timeAndMemory(
        {
          floor: [`${REPO}bench/fixtures/floor.cjs`, file],
          default: [`${REPO}dist/bin/rungrad.cjs`, "agentmeta", file],
          json: [`${REPO}dist/bin/rungrad.cjs`, "agentmeta", "--json", file],
        },
        runs,
      );
      const f = m["floor"]!;
      const cell = (r: { ms: number; kib: number }) => `${ms(r.ms).padStart(11)} ${ratio(r.ms, f.ms)}  ${mib(r.kib).padStart(8)} ${ratio(r.kib, f.kib)}`;
      rows.push([`${count.toLocaleString("en")} commands`, `floor ${ms(f.ms).padStart(11)} ${mib(f.kib).padStart(8)}  | default ${cell(m["default"]!)}  | --json ${cell(m["json"]!)}`]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  report("rungrad agentmeta FILE as a process against parse+stringify (the floor): median time and peak RSS, ratios to the floor (aims: default ≤ 3x, --json ≤ 2.5x time; both ≤ 2x memory)", rows);
}
