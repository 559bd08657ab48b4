import { loadServed } from "../dist/src/transports/packs.js";
import { buildTools } from "../dist/src/transports/tools.js";
import { compileSchema } from "../dist/src/pack/schema.js";
import { argsSchemaOf, planVerb } from "../dist/src/runtime/execute.js";
const packs = loadServed(["/work/main/test/fixtures/packs/hcp-probe"], "mcp", {});
const tools = buildTools(packs, {});
let t = performance.now();
if (process.argv[2]) for (const x of tools) compileSchema(argsSchemaOf(x.pack, x.verb));
console.log("warm", (performance.now() - t).toFixed(1));
const tt = tools.find((x) => x.verb === "echo");
for (let i = 0; i < 3; i++) { t = performance.now(); planVerb(tt.pack, "echo", { message: "x", count: 1 }, {}); console.log("plan", (performance.now() - t).toFixed(1)); }
