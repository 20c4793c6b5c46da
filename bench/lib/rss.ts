/** Memory figures in MB (1 MB = 1,048,576 bytes). */
import { readFileSync } from "node:fs";

const MB = 1024 * 1024;

/** This process's peak resident set since it started (getrusage ru_maxrss). */
export function peakRssMb(): number {
  return (process.resourceUsage().maxRSS * 1024) / MB;
}

export function rssMb(): number {
  return process.memoryUsage().rss / MB;
}

/** Resident set of another process, from /proc (Linux); null where /proc is not available. */
export function rssOfPidMb(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb === undefined ? null : (Number(kb) * 1024) / MB;
  } catch {
    return null;
  }
}
