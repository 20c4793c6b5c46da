/**
 * NCBI PMC ID Converter (https://pmc.ncbi.nlm.nih.gov/tools/id-converter-api/): classifying the
 * identifiers a caller gives, grouping them into requests, and reading the JSON replies.
 *
 * Requests (GET {NCBI_IDCONV_BASE_URL}/?…): `ids` (comma-separated, at most 200), `idtype` (`pmid`,
 * `pmcid`, `doi` or `mid`: all ids of one request share it — a mixed list without `idtype` is
 * guessed per id by NCBI, and one wrong guess fails the whole request with HTTP 404 "ID type
 * mismatch", so every request carries one `idtype`), `format=json`, `versions=no` (one record
 * per article instead of one per PMC version), `tool` and `email` (NCBI_TOOL / NCBI_EMAIL, as on
 * every NCBI call).
 */
import { z } from "zod";
import { UpstreamError, ValidationError } from "../errors.js";
import { excerpt, listSome, quoted } from "../excerpt.js";
import { compact, isRecord, list, parseJsonReply, str } from "../net/reply.js";

const SERVICE = "The PMC ID Converter";
export const MAX_IDS_PER_CALL = 200;
const MAX_IDS_PER_REQUEST = 200;

export type IdType = "pmid" | "pmcid" | "doi" | "mid";

/** One input identifier, normalised: PMC and manuscript ids upper-cased, DOIs without prefix. */
export interface ClassifiedId {
  /** What the caller gave, as text. */
  input: string;
  type: IdType;
  /** The form sent to the converter. */
  id: string;
}

const DOI = /^10\.\d{4,9}\/\S+$/;
// PMC manuscript ids: NIH (NIHMS), Europe PMC (EMS, formerly UKMS), HHS public access (HHSPA),
// Canada (CAMS) and the other funders' "…MS" series.
const MANUSCRIPT = /^(?:NIHMS|EMS|UKMS|CAMS|HHSPA|[A-Z]{1,6}MS)\d+$/;

/**
 * Classifies one identifier. `hint` "pmcid" reads bare digits as a PMCID (123 → PMC123); DOIs
 * may come as `doi:10.…` or as doi.org URLs. Returns a VALIDATION message for anything else.
 */
export function classifyId(
  raw: string | number,
  hint?: "pmid" | "pmcid",
): ClassifiedId | { input: string; problem: string } {
  const input = String(raw).trim();
  if (typeof raw === "number" && !(Number.isSafeInteger(raw) && raw > 0)) {
    return { input, problem: "is not a whole positive number" };
  }
  if (/^\d+$/.test(input)) {
    if (/^0+$/.test(input) || input.length > 9) {
      return { input, problem: 'is not a PMID (1–9 digits, e.g. "20495566")' };
    }
    const digits = input.replace(/^0+/, "");
    return hint === "pmcid"
      ? { input, type: "pmcid", id: `PMC${digits}` }
      : { input, type: "pmid", id: digits };
  }
  const upper = input.toUpperCase();
  if (/^PMC\d+$/.test(upper)) return { input, type: "pmcid", id: upper };
  if (/^PMC\d+\.\d+$/.test(upper)) return { input, type: "pmcid", id: upper };
  if (MANUSCRIPT.test(upper)) return { input, type: "mid", id: upper };
  const doi = doiOf(input);
  if (doi !== null) return { input, type: "doi", id: doi };
  if (/^(?:doi:|https?:\/\/(?:dx\.)?doi\.org\/)?\s*10\./i.test(input)) {
    return {
      input,
      problem: 'is not a DOI: a DOI must look like 10.<4–9 digits>/<suffix>, e.g. "10.1038/ng.590"',
    };
  }
  return {
    input,
    problem:
      'is neither a PMID (digits), a PMCID ("PMC" + digits), a DOI (10.<registrant>/<suffix>, e.g. "10.1038/ng.590") nor a manuscript id (e.g. "NIHMS198092")',
  };
}

/** The bare DOI in `doi:10.…`, `https://doi.org/10.…` or `10.…`, or null. */
export function doiOf(text: string): string | null {
  let value = text.trim().replace(/^doi:\s*/i, "");
  const url = /^https?:\/\/(?:dx\.)?doi\.org\/(.+)$/i.exec(value);
  if (url?.[1] !== undefined) {
    try {
      value = decodeURIComponent(url[1]);
    } catch {
      return null;
    }
  }
  return DOI.test(value) ? value : null;
}

/**
 * Classifies a caller's list: duplicates (same type and id) dropped, at most 200 ids. Every
 * unreadable id is named in one ValidationError, so the caller can fix them all at once.
 */
export function classifyIds(
  raw: readonly (string | number)[],
  field = "ids",
  hint?: "pmid" | "pmcid",
): ClassifiedId[] {
  if (raw.length === 0) throw new ValidationError(`${field} must list at least one identifier.`);
  if (raw.length > MAX_IDS_PER_CALL) {
    throw new ValidationError(
      `${field} lists ${raw.length} identifiers; at most ${MAX_IDS_PER_CALL} per call — split the list.`,
    );
  }
  const problems: string[] = [];
  const seen = new Map<string, ClassifiedId>();
  raw.forEach((value, index) => {
    const result = classifyId(value, hint);
    if ("problem" in result)
      problems.push(`${field}[${index}] ${quoted(result.input)} ${result.problem}`);
    else {
      const key = `${result.type}:${result.type === "doi" ? result.id.toLowerCase() : result.id}`;
      if (!seen.has(key)) seen.set(key, result);
    }
  });
  if (problems.length > 0) {
    throw new ValidationError(`${listSome(problems)}.`, { invalid: problems.length });
  }
  return [...seen.values()];
}

export interface IdconvRequest {
  idtype: IdType;
  ids: ClassifiedId[];
  /** Query parameters, without tool/email (the client adds those as on every NCBI call). */
  params: { ids: string; idtype: IdType; format: "json"; versions: "no" };
}

/** One request per id type (and per 200 ids), in the order the types first appear. */
export function groupIdconvRequests(ids: readonly ClassifiedId[]): IdconvRequest[] {
  const byType = new Map<IdType, ClassifiedId[]>();
  for (const id of ids) byType.set(id.type, [...(byType.get(id.type) ?? []), id]);
  const requests: IdconvRequest[] = [];
  for (const [idtype, group] of byType) {
    for (let i = 0; i < group.length; i += MAX_IDS_PER_REQUEST) {
      const chunk = group.slice(i, i + MAX_IDS_PER_REQUEST);
      requests.push({
        idtype,
        ids: chunk,
        params: { ids: chunk.map((c) => c.id).join(","), idtype, format: "json", versions: "no" },
      });
    }
  }
  return requests;
}

export const convertedIdSchema = z.object({
  input: z.string(),
  pmid: z.string().optional(),
  pmcid: z.string().optional(),
  doi: z.string().optional(),
  mid: z.string().optional(),
  /** PMC versions (`PMC2883744.2`), present only when the converter was asked for them. */
  versions: z
    .array(
      z.object({
        pmcid: z.string(),
        mid: z.string().optional(),
        current: z.literal(true).optional(),
      }),
    )
    .optional(),
  status: z.literal("error").optional(),
  errmsg: z.string().optional(),
});
export type ConvertedId = z.output<typeof convertedIdSchema>;

/**
 * Reads one converter reply for the ids of one request, in their order: every id gets a record,
 * with `status: "error"` and NCBI's `errmsg` for those it could not convert (and "not returned by
 * the converter" for ids missing from the reply). A reply that is an error as a whole (HTTP 404
 * `{"status":"error","message":"ID%20type%20…"}`) throws: ValidationError when NCBI says an id
 * does not fit its type, UpstreamError otherwise.
 */
export function parseIdconvReply(body: string, request: readonly ClassifiedId[]): ConvertedId[] {
  const reply = parseJsonReply(body, SERVICE, "ID conversion");
  if (reply.status === "error") {
    const message = decodeMessage(str(reply.message) ?? str(reply.errmsg)) ?? "no message";
    if (/mismatch|invalid/i.test(message)) {
      throw new ValidationError(
        `${SERVICE} rejected the identifiers: ${excerpt(message, 300)}. Check that each id has the form of its type.`,
        { service: "idconv" },
      );
    }
    throw new UpstreamError(
      `${SERVICE} reported an error: ${excerpt(message, 300)}; retry the call.`,
      {
        service: "idconv",
      },
    );
  }
  if (!Array.isArray(reply.records)) {
    throw new UpstreamError(`${SERVICE} returned a reply without records; retry the call.`, {
      service: "idconv",
    });
  }
  const records = reply.records.filter(isRecord);
  const used = new Set<number>();
  return request.map((asked, position) => {
    const index = findRecord(records, asked, position, used);
    if (index === -1) {
      return {
        input: asked.input,
        status: "error" as const,
        errmsg: "not returned by the converter",
      };
    }
    used.add(index);
    return toConverted(asked.input, records[index] ?? {});
  });
}

/** The record answering `asked`: by `requested-id`, then by the id itself, then by position. */
function findRecord(
  records: Record<string, unknown>[],
  asked: ClassifiedId,
  position: number,
  used: Set<number>,
): number {
  const same = (value: unknown): boolean => str(value)?.toLowerCase() === asked.id.toLowerCase();
  const byId = records.findIndex(
    (r, i) => !used.has(i) && (same(r["requested-id"]) || same(r[asked.type])),
  );
  if (byId !== -1) return byId;
  const hasKeys = records.some((r) => r["requested-id"] !== undefined);
  return !hasKeys && position < records.length && !used.has(position) ? position : -1;
}

function toConverted(input: string, record: Record<string, unknown>): ConvertedId {
  const versions = list(record.versions)
    .filter(isRecord)
    .map((v) =>
      compact({
        pmcid: str(v.pmcid) ?? "",
        mid: str(v.mid),
        current: v.current === true || v.current === "true" ? (true as const) : undefined,
      }),
    )
    .filter((v) => v.pmcid !== "");
  const error = record.status === "error" || str(record.errmsg) !== undefined;
  return compact({
    input,
    pmid: str(record.pmid),
    pmcid: str(record.pmcid),
    doi: str(record.doi),
    mid: str(record.mid) ?? versions.find((v) => v.current)?.mid,
    versions,
    status: error ? ("error" as const) : undefined,
    errmsg: error ? (str(record.errmsg) ?? "not converted") : undefined,
  });
}

/** The converter URL-encodes top-level messages ("ID%20type%20%27doi%27%20mismatch…"). */
function decodeMessage(message: string | undefined): string | undefined {
  if (message === undefined) return undefined;
  try {
    return decodeURIComponent(message);
  } catch {
    return message;
  }
}
