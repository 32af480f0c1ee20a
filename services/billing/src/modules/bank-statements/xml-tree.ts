import sax from 'sax';

/** An element read as a tree: its children by local name, its attributes as `@name`, its text as `#text` beside them. */
export type XmlNode = Record<string, unknown>;

export interface XmlTreeOptions {
  /** Elements read as arrays whether they occur once or several times. */
  repeated: ReadonlySet<string>;
  /**
   * The element read one at a time: each is handed to `onDetached` with its parent as read so far
   * (what precedes it in the document) when it closes, and is not kept in the tree, so a document
   * of any number of them holds one in memory at a time.
   */
  detached: string;
  onDetached: (element: unknown, parent: XmlNode) => void;
}

interface OpenElement {
  name: string;
  node: XmlNode;
  text: string;
  hasChildren: boolean;
}

const localName = (name: string): string => name.slice(name.indexOf(':') + 1);

/** An element with neither children nor attributes reads as its text; otherwise as a node, its text (if any) under `#text`. */
const valueOf = ({ node, text, hasChildren }: OpenElement): unknown => {
  const trimmed = text.trim();
  if (!hasChildren && Object.keys(node).length === 0) return trimmed;
  if (trimmed !== '') node['#text'] = trimmed;
  return node;
};

/** A child under its name: alone as itself, several (or a repeated one) as an array, in document order. */
const attach = (parent: OpenElement, name: string, value: unknown, repeated: ReadonlySet<string>): void => {
  parent.hasChildren = true;
  const existing = parent.node[name];
  if (Array.isArray(existing)) existing.push(value);
  else if (existing !== undefined) parent.node[name] = [existing, value];
  else parent.node[name] = repeated.has(name) ? [value] : value;
};

/**
 * Reads an XML document with a strict streaming parser (sax): XML's predefined entities and
 * character references decoded, any other entity an error, namespace prefixes dropped. Returns the
 * document as a tree of small objects, except each `detached` element, handed over one at a time.
 * Throws the parser's error on anything that is not well-formed.
 */
export const readXmlTree = (xml: string, { repeated, detached, onDetached }: XmlTreeOptions): XmlNode => {
  const root: OpenElement = { name: '', node: {}, text: '', hasChildren: false };
  const open: OpenElement[] = [root];
  // strictEntities: XML's five entities only (sax otherwise also knows HTML's, such as &nbsp;); @types/sax does not list it yet.
  const options: sax.SAXOptions & { strictEntities: boolean } = { trim: false, normalize: false, position: true, strictEntities: true };
  const parser = sax.parser(true, options);
  parser.onerror = (error) => {
    throw error;
  };
  parser.onopentag = (tag) => {
    const node: XmlNode = {};
    for (const [name, value] of Object.entries(tag.attributes)) {
      if (name !== 'xmlns' && !name.startsWith('xmlns:')) node[`@${localName(name)}`] = value;
    }
    open.push({ name: localName(tag.name), node, text: '', hasChildren: false });
  };
  parser.ontext = (text) => {
    open.at(-1)!.text += text;
  };
  parser.oncdata = parser.ontext;
  parser.onclosetag = () => {
    const element = open.pop()!;
    const parent = open.at(-1)!;
    if (element.name === detached) onDetached(valueOf(element), parent.node);
    else attach(parent, element.name, valueOf(element), repeated);
  };
  parser.write(xml).close();
  return root.node;
};
