/**
 * GET /readyz: every registered probe (getReadiness: metadata store, vector store, embedder…)
 * runs in parallel under a timeout; ready only when all pass. Probes must not depend on NCBI:
 * a replica that cannot reach NCBI still serves the offline corpus and answers live tools with
 * a clear UPSTREAM error, so pulling it from the load balancer would help nobody.
 */
import { AppError, StartingError } from "../errors.js";

export interface CheckResult {
  /** "starting": the dependency is still opening (the corpus stores after start-up). */
  status: "up" | "down" | "starting";
  ms: number;
  error?: string;
}

export interface Readiness {
  /** "starting" while some check is starting and none is down. */
  status: "ready" | "not_ready" | "starting";
  checks: Record<string, CheckResult>;
}

export const PROBE_TIMEOUT_MS = 3000;

/**
 * Probe failures are shown to unauthenticated callers: keep AppError messages (written to be
 * safe); from anything else strip credentials in URLs and local file paths, and cut it short.
 */
function describe(err: unknown): string {
  if (err instanceof AppError) return err.message;
  const text = err instanceof Error ? err.message : String(err);
  return text
    .replace(/\/\/[^/@\s]*@/g, "//***@")
    .replace(/(?<![\w:/])(?:file:\/\/)?\/(?:[\w.@-]+\/)+[\w.@-]*/g, "<path>")
    .slice(0, 200);
}

async function runProbe(probe: () => Promise<void>, timeoutMs: number): Promise<CheckResult> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([probe(), timeout]);
    return { status: "up", ms: Math.round(performance.now() - started) };
  } catch (err) {
    const status = err instanceof StartingError ? "starting" : "down";
    return { status, ms: Math.round(performance.now() - started), error: describe(err) };
  } finally {
    clearTimeout(timer);
  }
}

export async function checkReadiness(
  probes: Record<string, () => Promise<void>>,
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<Readiness> {
  const entries = await Promise.all(
    Object.entries(probes).map(
      async ([name, probe]) => [name, await runProbe(probe, timeoutMs)] as const,
    ),
  );
  const checks = Object.fromEntries(entries);
  const statuses = new Set(entries.map(([, r]) => r.status));
  const status = statuses.has("down")
    ? "not_ready"
    : statuses.has("starting")
      ? "starting"
      : "ready";
  return { status, checks };
}
