import { describe, expect, it } from 'vitest';
import { readXmlTree, type XmlNode } from './xml-tree.ts';

const read = (xml: string) => {
  const detached: { element: unknown; parent: XmlNode }[] = [];
  const tree = readXmlTree(xml, { repeated: new Set(['Ustrd']), detached: 'Ntry', onDetached: (element, parent) => detached.push({ element, parent: { ...parent } }) });
  return { tree, detached };
};

describe('readXmlTree', () => {
  it('reads elements by local name, attributes with @, text beside them, repeated elements as arrays', () => {
    const { tree } = read(`<?xml version="1.0"?><d:Document xmlns:d="urn:x"><d:Amt Ccy="EUR"> 12.50 </d:Amt><Ustrd>one</Ustrd><Nm>A</Nm><Nm>B</Nm><Empty/></d:Document>`);
    expect(tree).toEqual({ Document: { Amt: { '@Ccy': 'EUR', '#text': '12.50' }, Ustrd: ['one'], Nm: ['A', 'B'], Empty: '' } });
  });

  it('decodes the predefined entities, character references and CDATA once, and refuses any other entity', () => {
    expect(read('<a>&lt;b&gt; &amp;amp; &#233;&#x20AC; <![CDATA[<raw> &amp;]]></a>').tree).toEqual({ a: '<b> &amp; é€ <raw> &amp;' });
    expect(() => read('<a>&nbsp;</a>')).toThrow(/entity/i);
  });

  it('hands over each detached element with its parent as read so far, and keeps none of them in the tree', () => {
    const { tree, detached } = read('<Stmt><Acct>NL17</Acct><Ntry><Amt>1</Amt></Ntry><Ntry><Amt>2</Amt></Ntry><Note>after</Note></Stmt>');
    expect(detached).toEqual([
      { element: { Amt: '1' }, parent: { Acct: 'NL17' } },
      { element: { Amt: '2' }, parent: { Acct: 'NL17' } },
    ]);
    expect(tree).toEqual({ Stmt: { Acct: 'NL17', Note: 'after' } });
  });

  it('throws on a document that is not well-formed', () => {
    expect(() => read('<a><b></a>')).toThrow();
    expect(() => read('<a>')).toThrow();
  });
});
