// xmlbuilder2's parser gives a DOM (its own implementation, @oozcitak/dom); the project has no DOM lib types.
import type { Document, Element } from '@oozcitak/dom/lib/dom/interfaces.js';
import { create } from 'xmlbuilder2';

/** The namespaces of UBL 2.1 and CII D16B, by the prefixes the business-term tables use. */
const NAMESPACES: Record<string, string> = {
  ubl: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2',
  cac: 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
  cbc: 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
  rsm: 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100',
  ram: 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100',
  qdt: 'urn:un:unece:uncefact:data:standard:QualifiedDataType:100',
  udt: 'urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100',
};

/** The document element of an XML document, parsed by a real (namespace-aware) parser. */
export const parseXml = (bytes: Buffer | string): Element => (create(bytes.toString()).node as Document).documentElement!;

/**
 * The elements a child path reaches (`cac:LegalMonetaryTotal/cbc:PayableAmount`), each step
 * matched by namespace URI and local name, whatever prefixes the document chose.
 */
export const elementsAt = (from: Element, path: string): Element[] =>
  path.split('/').reduce<Element[]>(
    (nodes, step) => {
      const [prefix, local] = step.split(':') as [string, string];
      const uri = NAMESPACES[prefix];
      if (!uri) throw new Error(`Unknown prefix in ${step}`);
      return nodes.flatMap((node) => Array.from(node.childNodes).filter((child): child is Element => child !== undefined && child.nodeType === 1 && (child as Element).namespaceURI === uri && (child as Element).localName === local));
    },
    [from],
  );

/** The texts of every element the path reaches. */
export const textsAt = (from: Element, path: string): string[] => elementsAt(from, path).map((element) => element.textContent ?? '');

/** The text of the one element the path reaches; throws when there is none or several. */
export const textAt = (from: Element, path: string): string => {
  const found = elementsAt(from, path);
  if (found.length !== 1) throw new Error(`${path}: ${found.length} elements`);
  return found[0]!.textContent ?? '';
};

/** The one element the path reaches. */
export const elementAt = (from: Element, path: string): Element => {
  const found = elementsAt(from, path);
  if (found.length !== 1) throw new Error(`${path}: ${found.length} elements`);
  return found[0]!;
};
