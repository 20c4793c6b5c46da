/**
 * Records which modules a process loads: `node --import <this file> …` with MODULE_LOG=<file>.
 * ES modules are appended as they load (module.registerHooks, Node >= 22.15); CommonJS modules,
 * which tsx loads through hooks of its own, are appended from the require cache at exit.
 * Used by __tests__/startup/lazy-modules.test.ts.
 */
import { appendFileSync } from "node:fs";
import { createRequire, registerHooks } from "node:module";
import { pathToFileURL } from "node:url";

const out = process.env.MODULE_LOG;
if (out) {
  registerHooks({
    load(url, context, nextLoad) {
      appendFileSync(out, `${url}\n`);
      return nextLoad(url, context);
    },
  });
  const cache = createRequire(import.meta.url).cache;
  process.on("exit", () => {
    const files = Object.keys(cache).map((f) => `${pathToFileURL(f).href}\n`);
    appendFileSync(out, files.join(""));
  });
}
