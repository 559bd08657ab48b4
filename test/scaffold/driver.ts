// A minimal `rungrad` App with only `new`, run as a real process by the scaffold tests until the lead wires newCommand into src/cli/rungrad.ts.

import { App } from "../../src/framework/index.js";
import { newCommand } from "../../src/cli/rungrad/new.js";

await new App({ name: "rungrad", short: "Build and score agent-ready CLIs", version: "v0.0.0-test" }).addCommand(newCommand).main();
