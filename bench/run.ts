// `npm run bench`: every benchmark, each figure printed next to its baseline measured in the same run.

import { run as core } from "./core.bench.js";

console.log("Benchmarks (ratios against a baseline measured in this run; machines are noisy, compare ratios)");
core();
