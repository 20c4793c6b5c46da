/**
 * xml2js (with xmlbuilder) loaded on the first parse, synchronously (it is CommonJS), so a stdio
 * server's start-up does not pay for it before its first initialize reply (issue 11;
 * __tests__/startup/lazy-modules.test.ts).
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
let loaded: typeof import("xml2js") | undefined;

export function xml2js(): typeof import("xml2js") {
  return (loaded ??= require("xml2js") as typeof import("xml2js"));
}
