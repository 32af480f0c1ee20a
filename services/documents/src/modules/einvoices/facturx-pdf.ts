import { createHash } from 'node:crypto';
import { AFRelationship, PDFDocument, PDFHexString, PDFName, PDFString } from 'pdf-lib';
import { srgbIccProfile } from './srgb-icc-profile.ts';

/** The attachment name Factur-X 1.0 prescribes; the XMP names it too. */
export const FACTURX_FILE_NAME = 'factur-x.xml';
/** fx:ConformanceLevel of the profile the CII is written for. */
export const FACTURX_CONFORMANCE_LEVEL = 'EN 16931';

const escapeXml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** `2026-11-20T09:30:00+00:00`: an XMP date, in UTC like the PDF's Info dates. */
const xmpDate = (at: Date): string => `${at.toISOString().slice(0, 19)}+00:00`;

interface XmpFields {
  title: string;
  creator: string;
  producer: string;
  at: Date;
}

/**
 * PDF/A-3B identification, the document's Info entries mirrored (PDF/A demands they agree), and
 * the Factur-X extension schema that names the attachment and its profile.
 */
const xmpPacket = ({ title, creator, producer, at }: XmpFields): string => `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
  <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
    <rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/">
      <pdfaid:part>3</pdfaid:part>
      <pdfaid:conformance>B</pdfaid:conformance>
    </rdf:Description>
    <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
      <dc:format>application/pdf</dc:format>
      <dc:title><rdf:Alt><rdf:li xml:lang="x-default">${escapeXml(title)}</rdf:li></rdf:Alt></dc:title>
    </rdf:Description>
    <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/">
      <xmp:CreatorTool>${escapeXml(creator)}</xmp:CreatorTool>
      <xmp:CreateDate>${xmpDate(at)}</xmp:CreateDate>
      <xmp:ModifyDate>${xmpDate(at)}</xmp:ModifyDate>
      <xmp:MetadataDate>${xmpDate(at)}</xmp:MetadataDate>
    </rdf:Description>
    <rdf:Description rdf:about="" xmlns:pdf="http://ns.adobe.com/pdf/1.3/">
      <pdf:Producer>${escapeXml(producer)}</pdf:Producer>
    </rdf:Description>
    <rdf:Description rdf:about="" xmlns:fx="urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#">
      <fx:DocumentType>INVOICE</fx:DocumentType>
      <fx:DocumentFileName>${FACTURX_FILE_NAME}</fx:DocumentFileName>
      <fx:Version>1.0</fx:Version>
      <fx:ConformanceLevel>${FACTURX_CONFORMANCE_LEVEL}</fx:ConformanceLevel>
    </rdf:Description>
    <rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">
      <pdfaExtension:schemas>
        <rdf:Bag>
          <rdf:li rdf:parseType="Resource">
            <pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema>
            <pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#</pdfaSchema:namespaceURI>
            <pdfaSchema:prefix>fx</pdfaSchema:prefix>
            <pdfaSchema:property>
              <rdf:Seq>
${[
  ['DocumentFileName', 'name of the embedded XML invoice file'],
  ['DocumentType', 'INVOICE'],
  ['Version', 'The actual version of the Factur-X XML schema'],
  ['ConformanceLevel', 'The conformance level of the embedded Factur-X data'],
]
  .map(
    ([name, description]) => `                <rdf:li rdf:parseType="Resource">
                  <pdfaProperty:name>${name}</pdfaProperty:name>
                  <pdfaProperty:valueType>Text</pdfaProperty:valueType>
                  <pdfaProperty:category>external</pdfaProperty:category>
                  <pdfaProperty:description>${description}</pdfaProperty:description>
                </rdf:li>`,
  )
  .join('\n')}
              </rdf:Seq>
            </pdfaSchema:property>
          </rdf:li>
        </rdf:Bag>
      </pdfaExtension:schemas>
    </rdf:Description>
  </rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>`;

export interface FacturXInput {
  /** The invoice PDF as printed (already normalized, so its bytes are stable). */
  pdf: Buffer;
  /** The CII invoice, EN 16931 profile. */
  xml: Buffer;
  /** The moment the document stands for (finalization): dates of the attachment and the XMP. */
  at: Date;
}

/**
 * The invoice PDF as a Factur-X / ZUGFeRD PDF/A-3B: the CII XML attached as `factur-x.xml`
 * (relationship Alternative, listed in the catalog's /AF), an sRGB output intent, the XMP above
 * and a document ID derived from the content. No clock and no randomness, so the same PDF and XML
 * always give the same bytes.
 */
export const toFacturXPdf = async ({ pdf, xml, at }: FacturXInput): Promise<Buffer> => {
  const document = await PDFDocument.load(pdf, { updateMetadata: false });
  const { context, catalog } = document;
  await document.attach(xml, FACTURX_FILE_NAME, {
    mimeType: 'text/xml',
    description: 'Factur-X invoice (EN 16931)',
    creationDate: at,
    modificationDate: at,
    afRelationship: AFRelationship.Alternative,
  });

  const metadata = context.stream(
    Buffer.from(
      xmpPacket({ title: document.getTitle() ?? '', creator: document.getCreator() ?? '', producer: document.getProducer() ?? '', at }),
      'utf8',
    ),
    { Type: 'Metadata', Subtype: 'XML' },
  );
  catalog.set(PDFName.of('Metadata'), context.register(metadata));

  const icc = context.flateStream(srgbIccProfile(), { N: 3 });
  const outputIntent = context.obj({
    Type: 'OutputIntent',
    S: 'GTS_PDFA1',
    OutputConditionIdentifier: PDFString.of('sRGB IEC61966-2.1'),
    Info: PDFString.of('sRGB IEC61966-2.1'),
    DestOutputProfile: context.register(icc),
  });
  catalog.set(PDFName.of('OutputIntents'), context.obj([context.register(outputIntent)]));

  // PDF/A wants a file identifier; one derived from the content keeps re-renders identical.
  const id = createHash('sha256').update(pdf).update(xml).digest('hex').slice(0, 32);
  context.trailerInfo.ID = context.obj([PDFHexString.of(id), PDFHexString.of(id)]);

  return Buffer.from(await document.save({ useObjectStreams: false, addDefaultPage: false, updateFieldAppearances: false }));
};
