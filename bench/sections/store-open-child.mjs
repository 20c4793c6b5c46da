/**
 * Opens a new embedded store in a process of its own and prints what that cost: CPU (user +
 * system, process.cpuUsage) and wall time from just before openStore to its return, and the
 * process's own peak resident set. Plain JavaScript run by plain `node`, on the compiled server
 * (`storeModule`: a build's dist/store/db.js), so no TypeScript loader is in the figures: this is
 * the open a user's `pubmed-mcp` does. With `templateDir` empty the open runs initdb and saves
 * the template there; with a template in it, the open unpacks it.
 *
 * Input (argv[2], JSON): { storeModule, dataDir, templateDir }.
 * Output (one line, JSON): { cpuMs, wallMs, peakRssMb }.
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

const input = JSON.parse(process.argv[2] ?? "{}");
const { openStore } = await import(pathToFileURL(input.storeModule).href);
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const store = await openStore({ dataDir: input.dataDir, templateDir: input.templateDir });
const wallMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
// The open's peak, before close: VmHWM, not ru_maxrss, as bench/lib/rss.ts's peakRssMb (which
// this loader-free child cannot import) reads it, with the same fallback where /proc is absent.
const vmHwmKb = /^VmHWM:\s+(\d+)\s+kB/m.exec(procStatus())?.[1];
const kb = Number(vmHwmKb ?? process.resourceUsage().maxRSS);
await store.close();
console.log(
  JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000, wallMs, peakRssMb: kb / 1024 }),
);

function procStatus() {
  try {
    return readFileSync("/proc/self/status", "utf8");
  } catch {
    return "";
  }
}
