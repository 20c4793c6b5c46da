/**
 * Opens a new embedded store in a process of its own and prints what that cost: CPU (user +
 * system, process.cpuUsage) and wall time from just before openStore to its return, and the
 * process's own peak resident set (peakRssMb: VmHWM). With `templateDir` empty the open runs
 * initdb and saves the template there; with a template in it, the open unpacks it.
 */
import { openStore } from "../../src/store/db.js";
import { peakRssMb } from "../lib/rss.js";

export interface StoreOpenInput {
  dataDir: string;
  templateDir: string;
}

export interface StoreOpenOutput {
  cpuMs: number;
  wallMs: number;
  peakRssMb: number;
}

const input = JSON.parse(process.argv[2] ?? "{}") as StoreOpenInput;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const store = await openStore({ dataDir: input.dataDir, templateDir: input.templateDir });
const wallMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
await store.close();
const out: StoreOpenOutput = {
  cpuMs: (cpu.user + cpu.system) / 1000,
  wallMs,
  peakRssMb: peakRssMb(), // sampled here: the open's peak, before close
};
console.log(JSON.stringify(out));
