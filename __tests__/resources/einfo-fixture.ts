/** Project-written EInfo replies (the shape of NCBI's einfo 20190110 DTD), trimmed to two fields and one link. */
export const EINFO_XML = `<?xml version="1.0" encoding="UTF-8" ?>
<!DOCTYPE eInfoResult PUBLIC "-//NLM//DTD einfo 20190110//EN" "https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20190110/einfo.dtd">
<eInfoResult>
  <DbInfo>
    <DbName>pubmed</DbName>
    <MenuName>PubMed</MenuName>
    <Description>PubMed bibliographic record</Description>
    <DbBuild>Build-2024.05.01.04.12</DbBuild>
    <Count>36000001</Count>
    <LastUpdate>2024/05/01 04:12</LastUpdate>
    <FieldList>
      <Field>
        <Name>TIAB</Name>
        <FullName>Title/Abstract</FullName>
        <Description>Free text associated with Abstract/Title</Description>
        <TermCount/>
        <IsDate>N</IsDate>
        <IsNumerical>N</IsNumerical>
        <SingleToken>N</SingleToken>
        <Hierarchy>N</Hierarchy>
        <IsHidden>N</IsHidden>
      </Field>
      <Field>
        <Name>MESH</Name>
        <FullName>MeSH Terms</FullName>
        <Description>Medical Subject Headings assigned to publication</Description>
        <TermCount/>
        <IsDate>N</IsDate>
        <IsNumerical>N</IsNumerical>
        <SingleToken>Y</SingleToken>
        <Hierarchy>Y</Hierarchy>
        <IsHidden>N</IsHidden>
      </Field>
    </FieldList>
    <LinkList>
      <Link>
        <Name>pubmed_pubmed</Name>
        <Menu>Similar articles</Menu>
        <Description>Similar PubMed articles, obtained by matching text and MeSH terms</Description>
        <DbTo>pubmed</DbTo>
      </Link>
    </LinkList>
  </DbInfo>
</eInfoResult>`;

/** NCBI's answer to a database it does not know: HTTP 200 with an <ERROR> document. */
export const EINFO_ERROR_XML = `<?xml version="1.0"?>
<eInfoResult>
  <ERROR>Can not retrieve DbInfo for db=pubmed</ERROR>
</eInfoResult>`;
