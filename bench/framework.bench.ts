// Framework start-up: the rgref twin's `item list --json` and `--help` next to the same
// commands on bare commander, and next to `node -e 0`.

import { ms, ratio, report, REPO, timeCommands } from "./lib.js";

const RGREF = `${REPO}examples/rgref/rgref`;
const BARE = `${REPO}dist/bench/fixtures/bare-rgref.js`;

export function run(): void {
  const node = process.execPath;
  const times = timeCommands(
    {
      node: [node, "-e", "0"],
      "bare list": [node, BARE, "item", "list", "--json"],
      "rgref list": [node, RGREF, "item", "list", "--json"],
      "bare help": [node, BARE, "--help"],
      "rgref help": [node, RGREF, "--help"],
    },
    30,
  );
  const base = times["node"]!.p50;
  const row = (ours: string, bare: string): [string, string] => {
    const t = times[ours]!.p50;
    return [`${ours}`, `${ms(t)}  ${ratio(t, times[bare]!.p50)} of bare commander (aim: within 1.3x), +${ms(t - base)} over node (aim: within 60 ms)`];
  };
  report("Framework start-up, p50 of 30 runs (spawn to exit)", [
    ["node -e 0 (baseline)", ms(base)],
    ["bare list", ms(times["bare list"]!.p50)],
    row("rgref list", "bare list"),
    ["bare help", ms(times["bare help"]!.p50)],
    row("rgref help", "bare help"),
  ]);
}
