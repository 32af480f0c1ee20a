import { create } from 'xmlbuilder2';

/**
 * An element tree in xmlbuilder2's object form: keys are element names in schema order (both
 * syntaxes are sequence-ordered), `@name` keys are attributes, `#` is text, arrays repeat an element.
 * Optional business terms are written as `undefined` and left out, so the writers read like the
 * specifications' tables.
 */
export type XmlNode = { [name: string]: XmlValue };
export type XmlValue = string | XmlNode | XmlNode[] | undefined;

const prune = (node: XmlNode): XmlNode => {
  const pruned: XmlNode = {};
  for (const [name, value] of Object.entries(node)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) {
      if (value.length > 0) pruned[name] = value.map(prune);
    } else if (typeof value === 'object') {
      pruned[name] = prune(value);
    } else {
      pruned[name] = value;
    }
  }
  return pruned;
};

/** Text content, or the element left out when there is none. */
export const optional = (value: string | null | undefined, build: (value: string) => XmlValue = (v) => v): XmlValue =>
  value === null || value === undefined || value === '' ? undefined : build(value);

/**
 * The document as UTF-8 bytes. Same tree, same bytes: no timestamps, attribute order as given,
 * two-space indentation, LF line ends.
 */
export const serializeXml = (root: XmlNode): Buffer =>
  Buffer.from(`${create({ version: '1.0', encoding: 'UTF-8' }, prune(root)).end({ prettyPrint: true, indent: '  ', newline: '\n' })}\n`, 'utf8');
