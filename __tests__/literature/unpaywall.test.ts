/**
 * Unpaywall v2 DOI replies recorded by psu-libraries/researcher-metadata: green OA through a
 * repository copy, closed access, bronze (a VCR cassette), a DOI with brackets, and the 404
 * "isn't in Unpaywall" errors.
 */
import { describe, expect, it } from "@jest/globals";
import { NotFoundError, UpstreamError } from "../../src/errors.js";
import { parseUnpaywall, unpaywallRecordSchema } from "../../src/unpaywall/unpaywall.js";
import { cassetteReply } from "../helpers/cassette.js";
import { describeLiterature, literatureFixture } from "../helpers/shared.js";

const FIXTURES = "researcher-metadata/spec/fixtures";
const CASSETTES = `${FIXTURES}/vcr_cassettes/UnpaywallPublicationImporter`;
const WITH_DOI = `${CASSETTES}/_import_before/when_an_existing_publication_has_a_DOI_that_corresponds_to_an_available_article_listed_with_Unpaywall`;

describeLiterature("parseUnpaywall on recorded replies", () => {
  it("gives the best location of a green OA article: the arXiv copy with its version", () => {
    const record = parseUnpaywall(literatureFixture(`${FIXTURES}/unpaywall1.json`));
    expect(record).toEqual({
      doi: "10.1103/physrevlett.80.3915",
      title:
        "Stable Characteristic Evolution of Generic Three-Dimensional Single-Black-Hole Spacetimes",
      year: 1998,
      isOa: true,
      oaStatus: "green",
      bestOaLocation: {
        url: "http://arxiv.org/pdf/gr-qc/9801069",
        urlForPdf: "http://arxiv.org/pdf/gr-qc/9801069",
        urlForLandingPage: "http://arxiv.org/abs/gr-qc/9801069",
        version: "submittedVersion",
        hostType: "repository",
        repository: "arXiv.org",
      },
    });
    expect(unpaywallRecordSchema.parse(record)).toEqual(record);
  });

  it("says why there is no link for a closed-access DOI", () => {
    const record = parseUnpaywall(literatureFixture(`${FIXTURES}/unpaywall2.json`));
    expect(record).toMatchObject({
      doi: "10.1016/s0962-1849(05)80014-9",
      isOa: false,
      oaStatus: "closed",
    });
    expect(record.bestOaLocation).toBeUndefined();
    expect(record.reason).toBe("no open-access copy known to Unpaywall (closed access)");
  });

  it("reads bronze OA from a cassette, and a DOI with brackets", () => {
    const bronze = cassetteReply(
      literatureFixture(
        `${WITH_DOI}/when_the_publication_has_no_open_access_locations/assigns_the_metadata_from_Unpaywall_to_the_new_open_access_location.yml`,
      ),
    );
    expect(parseUnpaywall(bronze.body, bronze.status)).toMatchObject({
      doi: "10.1001/jamadermatol.2015.3091",
      oaStatus: "bronze",
      bestOaLocation: {
        url: "https://jamanetwork.com/journals/jamadermatology/articlepdf/2471551/doi150042.pdf",
        urlForLandingPage: "https://doi.org/10.1001/jamadermatol.2015.3091",
        hostType: "publisher",
        version: "publishedVersion",
      },
    });
    const brackets = cassetteReply(
      literatureFixture(
        `${WITH_DOI}/when_the_publication_DOI_has_brackets/assigns_the_metadata_from_Unpaywall_to_the_new_open_access_location.yml`,
      ),
    );
    const record = parseUnpaywall(brackets.body, brackets.status);
    expect(record.doi).toBe("10.1641/0006-3568(2005)055[0851:potapf]2.0.co;2");
    expect(record.bestOaLocation?.license).toBeUndefined(); // Unpaywall's null licence is left out
  });

  it("turns the recorded 404 replies into NOT_FOUND with Unpaywall's words", () => {
    for (const path of [
      `${CASSETTES}/_import_before/when_an_existing_publication_s_DOI_does_not_return_usable_data/does_not_raise_an_error.yml`,
      `${CASSETTES}/_import_new/when_an_existing_publication_has_a_DOI_that_does_not_correspond_to_an_available_article_listed_with_Unpaywall/when_the_publication_has_been_checked_in_Unpaywall_before/when_the_publication_has_no_open_access_locations/does_not_update_the_open_access_status_on_the_publication.yml`,
    ]) {
      const reply = cassetteReply(literatureFixture(path));
      expect(reply.status).toBe(404);
      expect(() => parseUnpaywall(reply.body, reply.status)).toThrow(NotFoundError);
      expect(() => parseUnpaywall(reply.body, reply.status)).toThrow(
        /^Unpaywall: '10\.000\/\w+' isn't in Unpaywall\.$/,
      );
    }
  });
});

describe("parseUnpaywall failures", () => {
  it("maps other errors and malformed replies to UPSTREAM", () => {
    const invalidEmail = JSON.stringify({
      HTTP_status_code: 422,
      error: true,
      message: "Please use a real email address.",
    });
    expect(() => parseUnpaywall(invalidEmail, 422)).toThrow(UpstreamError);
    expect(() => parseUnpaywall("<html>Application Error</html>", 503)).toThrow(UpstreamError);
    expect(() => parseUnpaywall('{"doi": "10.1/x"}')).toThrow(/no doi or is_oa/);
  });
});
