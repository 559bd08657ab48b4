// `npm run bench`: every benchmark, each figure printed next to its baseline measured in the same run.

import { run as core } from "./core.bench.js";
import { run as framework } from "./framework.bench.js";
import { run as hcp } from "./hcp.bench.js";
import { run as serve } from "./serve.bench.js";

console.log("Benchmarks (ratios against a baseline measured in this run; machines are noisy, compare ratios)");
// NODE_EXTRA_CA_CERTS makes every node process parse the certificates it names as it starts, whatever it then does:
// 36 ms of CPU of each start on the VM of docs/performance.md (`node -e 0` 92 against 56 ms), a tax on each figure and
// on its baseline alike that makes every ratio look nearer 1. The programs measured run without it.
if (process.env["NODE_EXTRA_CA_CERTS"] !== undefined) {
  delete process.env["NODE_EXTRA_CA_CERTS"];
  console.log("(NODE_EXTRA_CA_CERTS is set here: left out of the environment of every program measured)");
}
core();
framework();
await hcp();
await serve();
