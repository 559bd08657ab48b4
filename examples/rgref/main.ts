#!/usr/bin/env node
// rgref's entry point: run the reference CLI against the real process.

import { newApp } from "./app.js";

void newApp().main();
