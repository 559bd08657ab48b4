// rgref's entry point: run the reference CLI against the real process.

import { newApp } from "./app.js";

await newApp().main();
