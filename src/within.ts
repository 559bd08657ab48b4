// Whether a path lies in a folder, by the two paths alone (no link is followed): the one test every folder rule uses.

import { sep } from "node:path";

/** Whether `path` (absolute, normalised) is the folder `root` or lies in it (`/` holds every path). */
export const within = (path: string, root: string): boolean => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
