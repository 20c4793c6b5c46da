/**
 * Generated tool calls for the edges section: call i of a run is drawn from its own seeded stream
 * (no Math.random), so any call can be rebuilt alone and a run is the same every time. A call
 * starts from valid arguments built from the tool's advertised input schema (tools/list) and
 * the demo's synthetic records (real PMIDs, DOIs, references), then one kind of damage is done
 * to it: wrong types, huge strings and arrays, deep nesting, unicode, control characters, lone
 * surrogates, unknown and `__proto__` keys, numbers as strings, nulls, or arguments that are not
 * an object at all.
 */
import { DEMO_TERMS, demoCorpus } from "../../src/devtools/synth-ncbi.js";
import { REFERENCE_STYLES, synthReference } from "../../src/devtools/reference-styles.js";
import { Rng } from "../../src/devtools/synth-random.js";
import { damage, typeOf } from "./edges-damage.js";

/** The part of JSON Schema (draft-07) that tools/list advertises here. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
}

export interface ToolSchema {
  name: string;
  inputSchema: JsonSchema;
}

export const KINDS = {
  valid: 18,
  wrong_type: 10,
  huge_string: 6,
  huge_array: 5,
  deep_nesting: 5,
  unicode: 8,
  control_chars: 6,
  lone_surrogate: 5,
  unknown_keys: 6,
  proto_key: 4,
  numbers_as_strings: 5,
  nulls: 5,
  missing_required: 3,
  not_an_object: 3,
  odd_numbers: 4,
  many_problems: 4,
} as const;
export type Kind = keyof typeof KINDS;

export interface GeneratedCall {
  tool: string;
  kind: Kind;
  arguments: unknown;
}

/** Identifiers and texts the synthetic NCBI knows, so valid calls find something. */
export interface Seeds {
  pmids: string[];
  dois: string[];
  pmcids: string[];
  terms: string[];
  references: string[];
  citations: Record<string, string>[];
}

export function demoSeeds(): Seeds {
  const corpus = demoCorpus();
  const pmids = DEMO_TERMS.flatMap((t) => corpus.pmidsFor(t.term));
  const records = pmids.map((p) => corpus.record(p)).filter((r) => r !== undefined);
  const rng = new Rng(45);
  return {
    pmids,
    dois: records.flatMap((r) => (r.doi ? [r.doi] : [])),
    pmcids: records.flatMap((r) => (r.pmcid ? [r.pmcid] : [])),
    terms: DEMO_TERMS.map((t) => t.term),
    references: records.slice(0, 60).map((r) => {
      const style = rng.pick(REFERENCE_STYLES);
      return synthReference(r, style, {
        doi: rng.chance(0.5),
        pmid: rng.chance(0.3),
        variant: rng.int(0, 7),
      });
    }),
    citations: records.slice(0, 60).map((r) => ({
      journal: r.citation.journal.iso,
      year: String(r.citation.pubDate.year),
      volume: r.citation.volume,
      firstPage: r.citation.startPage,
      authorName: `${r.citation.firstAuthor.lastName} ${r.citation.firstAuthor.initials}`,
    })),
  };
}

/** A valid value for a property, using the seeds where the name says what it holds. */
function validValue(rng: Rng, name: string, s: JsonSchema, seeds: Seeds): unknown {
  if (s.enum) return rng.pick(s.enum);
  const type = typeOf(s);
  if (type === "array") {
    const item = s.items ?? {};
    const max = Math.min(s.maxItems ?? 5, name === "styles" ? 2 : 5);
    const n = rng.int(Math.max(1, s.minItems ?? 1), Math.max(1, max));
    const out = Array.from({ length: n }, () => validValue(rng, name, item, seeds));
    return item.enum ? [...new Set(out)] : out;
  }
  if (type === "object") {
    if (name === "citations") return { ...rng.pick(seeds.citations), key: `c${rng.int(1, 99)}` };
    return validObject(rng, s, seeds);
  }
  if (type === "integer" || type === "number") {
    const min = s.minimum ?? 0;
    // Small sizes: valid calls stay cheap (a sync of a few records, a chart of a few years).
    const cap = /year/i.test(name) ? 2025 : min + 20;
    const hi = Math.min(s.maximum ?? cap, cap);
    return /year/i.test(name) ? rng.int(2018, 2025) : rng.int(min, Math.max(min, hi));
  }
  if (type === "boolean") return rng.chance(0.5);
  return validString(rng, name, s, seeds);
}

function validString(rng: Rng, name: string, s: JsonSchema, seeds: Seeds): string {
  if (/pmcid/i.test(name)) return rng.pick(seeds.pmcids);
  if (/doi/i.test(name) && name !== "doc_id") return rng.pick(seeds.dois);
  if (name === "doc_id") return `pmid:${rng.pick(seeds.pmids)}`;
  if (/pmid/i.test(name) || s.pattern === "^\\d{1,9}$") return rng.pick(seeds.pmids);
  if (name === "ids") return rng.pick([...seeds.pmids.slice(0, 20), ...seeds.dois.slice(0, 20)]);
  if (name === "references") return rng.pick(seeds.references);
  if (name === "query_key") return `edges-${rng.int(1, 4)}`;
  if (name === "last_edat") return `20${rng.int(10, 25)}-0${rng.int(1, 9)}-01T00:00:00Z`;
  if (/date/i.test(name)) return `${rng.int(2015, 2025)}/0${rng.int(1, 9)}`;
  if (name === "term" && s.maxLength === 500)
    return rng.pick(["asthma", "heart attack", "D001249"]);
  if (name === "sections") return rng.pick(["methods", "results", "abstract"]);
  if (name === "queryKey") return "1";
  if (/query|term/i.test(name)) return rng.pick(seeds.terms);
  return `edges ${rng.int(1, 1000)}`;
}

function validObject(rng: Rng, s: JsonSchema, seeds: Seeds): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const required = new Set(s.required ?? []);
  const props = Object.entries(s.properties ?? {});
  // Tools taking one of several id lists (pmids | pmcids | dois | webEnv): one of them.
  const idLists = props.filter(([k]) => ["pmids", "pmcids", "dois"].includes(k)).map(([k]) => k);
  const idList = idLists.length > 0 && !required.has(idLists[0]!) ? rng.pick(idLists) : undefined;
  for (const [key, prop] of props) {
    if (idLists.includes(key) && !required.has(key)) {
      if (key === idList) out[key] = validValue(rng, key, prop, seeds);
      continue;
    }
    if (key === "webEnv" || key === "queryKey" || key === "cursorMark") continue;
    if (required.has(key) || rng.chance(0.4)) out[key] = validValue(rng, key, prop, seeds);
  }
  if (typeof out.startYear === "number" && typeof out.endYear === "number") {
    out.endYear = Math.min(2025, Math.max(out.startYear, out.endYear));
    out.startYear = Math.max(out.startYear, (out.endYear as number) - 8);
  }
  return out;
}

/** Call `i` of a run with `seed`: a tool, a kind of damage and the arguments. */
export function generateCall(
  seed: number,
  i: number,
  tools: ToolSchema[],
  seeds: Seeds,
): GeneratedCall {
  const rng = Rng.of(seed, i);
  const tool = tools[i % tools.length]!;
  const kind = rng.weighted(Object.keys(KINDS) as Kind[], (k) => KINDS[k]);
  const args = validObject(rng, tool.inputSchema, seeds);
  return { tool: tool.name, kind, arguments: damage(rng, kind, args, tool.inputSchema) };
}

/** Valid arguments for a tool (the warm-up call of each tool). */
export function validCall(seed: number, tool: ToolSchema, seeds: Seeds): GeneratedCall {
  const rng = Rng.of(seed, 0x7fffffff);
  return { tool: tool.name, kind: "valid", arguments: validObject(rng, tool.inputSchema, seeds) };
}
