// generate: options → the project's files in memory (sorted bytewise), and the scaffold-time manifest they were built from.

import { compareBytes } from "../json/stable.js";
import type { ValidManifest } from "../manifest/index.js";
import { scaffoldManifest } from "./manifest.js";
import { validateOptions, type ScaffoldOptions, type ScaffoldSettings } from "./options.js";
import { programDecl, type ProgramDecl } from "./program.js";
import { skillFiles } from "./skill.js";
import { mainSource } from "./templates/main.js";
import { gitignore, packageJSON, tsconfigJSON } from "./templates/project.js";
import { readmeSource } from "./templates/readme.js";
import { testSource } from "./templates/tests.js";

/** One generated file: a project-relative path with forward slashes, and its text. */
export interface ProjectFile {
  path: string;
  content: string;
}

export interface Project {
  settings: ScaffoldSettings;
  program: ProgramDecl;
  /** What the generated CLI prints on `__rungrad_manifest` (tool_version v0.1.0). */
  manifest: ValidManifest;
  /** Sorted bytewise by path. */
  files: ProjectFile[];
}

/** Validates the options and renders every file; writes nothing. */
export function generate(options: ScaffoldOptions): Project {
  const settings = validateOptions(options);
  const program = programDecl(settings);
  const manifest = scaffoldManifest(program);
  const files: ProjectFile[] = [
    { path: ".gitignore", content: gitignore() },
    { path: "README.md", content: readmeSource(settings) },
    { path: "package.json", content: packageJSON(settings) },
    { path: "tsconfig.json", content: tsconfigJSON() },
    { path: "src/main.ts", content: mainSource(settings, program) },
    { path: "test/main.test.ts", content: testSource(settings, program) },
    ...(settings.skill ? skillFiles(manifest) : []),
  ];
  files.sort((a, b) => compareBytes(a.path, b.path));
  return { settings, program, manifest, files };
}
