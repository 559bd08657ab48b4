// `npm run bench`: every benchmark, each figure printed next to its baseline measured in the same run.

import { run as core } from "./core.bench.js";
import { run as framework } from "./framework.bench.js";
import { run as hcp } from "./hcp.bench.js";
import { run as serve } from "./serve.bench.js";

console.log("Benchmarks (ratios against a baseline measured in this run; machines are noisy, compare ratios)");
core();
framework();
await hcp();
await serve();
