/**
 * `pubmed-mcp sync`, `pubmed-mcp search` and `pubmed-mcp reindex`: the corpus from a terminal,
 * through the same services as the tools. A progress bar on a TTY; JSON with --json.
 */
import { SingleBar, Presets } from "cli-progress";
import { parseArgs as parseNodeArgs, type ParseArgsConfig } from "node:util";
import { SEARCH_NOTES, reindexCorpus, runSync, searchCorpus } from "../worker/corpus-api.js";
import { ValidationError } from "../errors.js";

function int(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new ValidationError(`--${name} must be a whole number`);
  return Number(value);
}

/**
 * node:util's parseArgs, its refusals (an unknown option, a missing value) as VALIDATION errors
 * naming the command's help rather than an internal error.
 */
function parseArgs<T extends ParseArgsConfig>(command: string, config: T) {
  try {
    return parseNodeArgs(config);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS")) {
      throw new ValidationError(
        `${(err as Error).message.replace(/\.?\s*$/, "")}; see pubmed-mcp ${command} --help`,
      );
    }
    throw err;
  }
}

function print(json: boolean, value: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}

export async function syncCommand(argv: string[]): Promise<void> {
  const { values } = parseArgs("sync", {
    args: argv,
    options: {
      "query-key": { type: "string" },
      term: { type: "string" },
      "overlap-days": { type: "string" },
      "max-records": { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  const queryKey = values["query-key"]?.trim();
  const term = values.term?.trim();
  if (!queryKey || !term) throw new ValidationError("sync needs --query-key K and --term T");
  const bar =
    process.stderr.isTTY && !values.json
      ? new SingleBar(
          { format: "{bar} {value}/{total} records | {message}", stream: process.stderr },
          Presets.shades_classic,
        )
      : null;
  bar?.start(1, 0, { message: "searching" });
  try {
    const result = await runSync(
      {
        queryKey,
        term,
        overlapDays: int(values["overlap-days"], "overlap-days", 5),
        maxRecords: int(values["max-records"], "max-records", 50_000),
      },
      {
        onProgress: (done, total, message) => {
          bar?.setTotal(total);
          bar?.update(Math.floor(done), { message }); // heartbeats add fractions (MCP: values rise)
        },
      },
    );
    bar?.stop();
    print(
      values.json,
      result,
      `inserted ${result.inserted}, updated ${result.updated}, skipped ${result.skipped} ` +
        `(${result.pmids_processed} records; newest Entrez date ${result.max_edat_seen ?? "none"})` +
        result.warnings.map((w) => `\nwarning: ${w}`).join(""),
    );
  } finally {
    bar?.stop();
  }
}

export async function searchCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs("search", {
    args: argv,
    allowPositionals: true,
    options: {
      "top-k": { type: "string" },
      "no-quality-bias": { type: "boolean", default: false },
      json: { type: "boolean", default: false },
    },
  });
  const query = positionals.join(" ").trim();
  if (!query)
    throw new ValidationError('search needs a query, e.g. pubmed-mcp search "metformin aging"');
  const { results, why } = await searchCorpus(
    query,
    int(values["top-k"], "top-k", 10),
    !values["no-quality-bias"],
  );
  // rag_search's note, in a terminal's words where it names tools.
  const note =
    why === "empty corpus"
      ? "The local corpus is empty: sync a query first with pubmed-mcp sync."
      : why && SEARCH_NOTES[why];
  print(
    values.json,
    { results, ...(note && { note }) },
    results
      .map(
        (r, i) =>
          `${i + 1}. ${r.doc_id}  score ${r.score.toFixed(4)}  quality ${r.quality}\n   ${r.title}`,
      )
      .join("\n") ||
      note ||
      "no results",
  );
}

export async function reindexCommand(argv: string[]): Promise<void> {
  const { values } = parseArgs("reindex", {
    args: argv,
    options: { json: { type: "boolean", default: false } },
  });
  const result = await reindexCorpus();
  print(values.json, result, `reindexed ${result.documents} documents with ${result.embedding}`);
}
