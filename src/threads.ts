/**
 * The script of a worker thread beside the module that starts it. Sources run as .ts under tsx
 * and jest (dev, tests), as .js from dist/ in production; a .ts thread needs tsx's loader too.
 * A process run with --cpu-prof (`npm run bench -- --profile`) profiles its threads as well.
 */
export function threadScript(name: string, from: string): { url: URL; execArgv: string[] } {
  const dev = from.endsWith(".ts");
  return {
    url: new URL(`./${name}.${dev ? "ts" : "js"}`, from),
    execArgv: [
      ...(dev ? ["--import", "tsx"] : []),
      ...process.execArgv.filter((a) => a.startsWith("--cpu-prof")),
    ],
  };
}
