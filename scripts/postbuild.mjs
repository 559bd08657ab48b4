// Marks the built command entry points executable (npm does this on install; tests spawn them from dist/).
import { chmodSync, existsSync, readdirSync } from "node:fs";

for (const dir of ["dist/src/cli"]) {
  if (!existsSync(dir)) continue;
  for (const name of readdirSync(dir)) {
    if (name.endsWith(".js")) chmodSync(`${dir}/${name}`, 0o755);
  }
}
