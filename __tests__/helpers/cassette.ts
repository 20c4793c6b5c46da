/**
 * Reads recorded HTTP interactions out of VCR cassettes (Ruby VCR 6 and R's vcr/webmockr), which
 * store each reply inside YAML. `yaml` is not a dependency of the project: it arrives with the
 * devDependency @modelcontextprotocol/conformance, and only tests import it.
 */
import { parse } from "yaml";

export interface RecordedInteraction {
  method: string;
  uri: string;
  status: number;
  body: string;
}

type Loose = Record<string, unknown>;

function obj(value: unknown): Loose {
  return typeof value === "object" && value !== null ? (value as Loose) : {};
}

/** Every interaction of a cassette, in recording order. */
export function cassetteInteractions(yamlText: string): RecordedInteraction[] {
  const doc = obj(parse(yamlText));
  const list = Array.isArray(doc.http_interactions) ? doc.http_interactions : [];
  return list.map((item) => {
    const request = obj(obj(item).request);
    const response = obj(obj(item).response);
    const status = obj(response.status);
    // Ruby VCR writes `code: 404`; R's vcr writes `status_code: '404'`.
    const code = Number(status.code ?? status.status_code);
    const body = obj(response.body).string;
    return {
      method: String(request.method ?? "get").toUpperCase(),
      uri: String(request.uri ?? ""),
      status: Number.isFinite(code) ? code : 0,
      body: typeof body === "string" ? body : "",
    };
  });
}

/** The one interaction of a single-request cassette. */
export function cassetteReply(yamlText: string): RecordedInteraction {
  const [first, ...rest] = cassetteInteractions(yamlText);
  if (first === undefined || rest.length > 0) {
    throw new Error(`expected one recorded interaction, found ${rest.length + (first ? 1 : 0)}`);
  }
  return first;
}
