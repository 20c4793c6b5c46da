/** The report as markdown: one table for every section, ratios after the figures they compare. */
import type { Figure, Ratio, SectionResult } from "./stats.js";

export interface Machine {
  cpu: string;
  cores: number;
  memoryGb: number;
  os: string;
  node: string;
  postgres: string | null;
}

export interface Report {
  version: 1;
  startedAt: string;
  durationS: number;
  mode: "full" | "quick" | "smoke";
  machine: Machine;
  git: string | null;
  sections: Record<string, SectionResult>;
}

/** Three significant digits, no exponent for everyday magnitudes. */
export function fmt(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  const abs = Math.abs(v);
  if (abs >= 1000) return Math.round(v).toLocaleString("en-US");
  if (abs >= 100) return v.toFixed(0);
  if (abs >= 10) return v.toFixed(1);
  if (abs >= 1) return v.toFixed(2);
  if (abs === 0) return "0";
  return v.toPrecision(3);
}

function row(section: string, f: Figure | Ratio): string {
  const unit = f.unit === "×" ? "×" : f.unit ? ` ${f.unit}` : "";
  const cell = (v: number) => (f.unit === "×" ? `${fmt(v)}×` : `${fmt(v)}${unit}`);
  const label = "definition" in f ? `${f.label} (${f.definition})` : f.label;
  const spread = f.n > 1 ? `${cell(f.min)} – ${cell(f.max)}` : "—";
  return `| ${section} | ${label} | **${cell(f.median)}** | ${spread} | ${f.n} |`;
}

export function markdownTable(report: Report): string {
  const lines = ["| section | figure | median | min – max | n |", "|---|---|---|---|---|"];
  for (const [name, s] of Object.entries(report.sections)) {
    if (s.skipped && s.figures.length === 0)
      lines.push(`| ${name} | skipped: ${s.skipped} | | | |`);
    for (const f of s.figures) lines.push(row(name, f));
    for (const r of s.ratios) lines.push(row(name, r));
  }
  const notes = Object.entries(report.sections).flatMap(([name, s]) => [
    ...(s.skipped && s.figures.length > 0 ? [`- ${name}: partly skipped: ${s.skipped}`] : []),
    ...s.notes.map((n) => `- ${name}: ${n}`),
  ]);
  const m = report.machine;
  return [
    `Mode: ${report.mode}; ${report.startedAt}; ${fmt(report.durationS)} s; commit ${report.git ?? "unknown"}.`,
    `Machine: ${m.cpu}, ${m.cores} cores, ${fmt(m.memoryGb)} GB RAM, ${m.os}, Node ${m.node}` +
      `${m.postgres ? `, ${m.postgres}` : ""}.`,
    "",
    ...lines,
    ...(notes.length > 0 ? ["", "Notes:", ...notes] : []),
  ].join("\n");
}
