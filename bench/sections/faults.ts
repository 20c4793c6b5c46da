/**
 * §6 NCBI faults: the fault matrix of __tests__/faults (every live tool and resource://pubmed/stats
 * through the SDK client, in memory, against the fake NCBI answering every request with one fault;
 * NCBI_DEADLINE_MS 2 s, one retry, 0–10 ms backoff). For a hang the figure is how far past its
 * deadline each call ended (the contract: inside deadline + 100 ms); for every other fault, the
 * time from the call to its error. The fault × tool table of codes goes into the notes.
 */
import {
  DEADLINE_MS,
  FAULTS,
  TARGETS,
  faultTable,
  runCell,
  startFaultyNcbi,
} from "../../__tests__/faults/matrix.js";
import type { BenchOptions } from "../lib/options.js";
import { emptySection, figure, ratio, type SectionResult } from "../lib/stats.js";

/** The contract's allowance past the deadline. */
const SLACK_MS = 100;

const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_|_$/g, "");

export async function faultsSection(opts: BenchOptions): Promise<SectionResult> {
  const section = emptySection("faults");
  const { reps, targets: n } = opts.sizes.faults;
  const targets = TARGETS.slice(0, n ?? TARGETS.length);
  const fake = await startFaultyNcbi();
  const codes = new Map<string, string | null>();
  const wrong: string[] = [];
  /** Cells of faults with nothing to wait for that still took half the deadline or more. */
  const slow = new Set<string>();
  const ms = new Map<string, number[]>(FAULTS.map((f) => [f.name, []]));
  try {
    for (let rep = 0; rep < reps; rep++) {
      for (const fault of FAULTS) {
        for (const target of targets) {
          const cell = `${fault.name} × ${target.name}`;
          const out = await runCell(fake, target, fault);
          ms.get(fault.name)?.push(out.ms);
          if (fault.ends === "early" && out.ms >= DEADLINE_MS / 2) slow.add(cell);
          const seen = codes.get(cell);
          if (seen !== undefined && seen !== out.code)
            wrong.push(`${cell}: ${seen} then ${out.code}`);
          codes.set(cell, out.code);
        }
      }
    }
  } finally {
    await fake.close();
  }

  const all = [...ms.values()].flat();
  const late = all.filter((t) => t > DEADLINE_MS + SLACK_MS).length;
  for (const fault of FAULTS) {
    const values = ms.get(fault.name) ?? [];
    if (fault.ends === "deadline") {
      section.figures.push(
        figure(
          `faults.${slug(fault.name)}.overrun_ms`,
          `${fault.name}: time past the ${DEADLINE_MS / 1000} s deadline at which the call ended`,
          "ms",
          values.map((t) => t - DEADLINE_MS),
        ),
      );
      section.ratios.push(
        ratio(
          `faults.${slug(fault.name)}.vs_deadline`,
          `${fault.name}: call time vs deadline`,
          "time to the error ÷ NCBI_DEADLINE_MS, call by call",
          values,
          values.map(() => DEADLINE_MS),
        ),
      );
    } else {
      section.figures.push(
        figure(
          `faults.${slug(fault.name)}.time_to_error_ms`,
          `${fault.name}: time to the error`,
          "ms",
          values,
        ),
      );
    }
  }
  section.figures.push(
    figure("faults.all.max_ms", "any fault: the longest call (deadline 2 s)", "ms", [
      Math.max(...all),
    ]),
  );
  section.notes.push(
    `${all.length} calls (${FAULTS.length} faults × ${targets.length} targets × ${reps}); ` +
      `${late} ended later than deadline + ${SLACK_MS} ms. Codes per fault:`,
    ...FAULTS.map((f) => {
      const got = targets.map(
        (t) => `${t.name.replace(/^pubmed_/, "")} ${codes.get(`${f.name} × ${t.name}`) ?? "—"}`,
      );
      const same = new Set(targets.map((t) => codes.get(`${f.name} × ${t.name}`)));
      return `${f.name}: ${same.size === 1 ? `all ${[...same][0] ?? "—"}` : got.join(", ")}`;
    }),
  );
  // The table as bench/README.md shows it, on stderr (the report's notes are one line each).
  process.stderr.write(
    `\nNCBI faults × tools (the code each call ended with):\n${faultTable(codes, targets)}\n\n`,
  );
  if (slow.size > 0)
    section.notes.push(
      `waited for (most of) the deadline instead of failing at once: ${[...slow].join("; ")}`,
    );
  if (wrong.length > 0) section.notes.push(`codes differed between passes: ${wrong.join("; ")}`);
  return section;
}
