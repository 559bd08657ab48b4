// The version the programs report.

import { OWN_PACKAGE } from "../package.js";

export const PACKAGE_VERSION: string = OWN_PACKAGE.version;
