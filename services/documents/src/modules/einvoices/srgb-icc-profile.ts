// PDF/A needs an output intent with an ICC profile describing the colours of the page. Chromium
// paints in sRGB, so the Factur-X PDF names sRGB. No sRGB profile ships with Node or an npm
// package worth a dependency, so this module writes a small ICC v2 display profile: the sRGB
// primaries adapted to D50 (IEC 61966-2-1, as the ICC's own sRGB profiles give them) and the
// sRGB transfer curve sampled at 1024 points. Built once, always the same bytes.

const s15Fixed16 = (value: number): number => Math.round(value * 65536);

const tag = (signature: string, body: Buffer): Buffer => Buffer.concat([Buffer.from(signature, 'ascii'), Buffer.alloc(4), body]);

const xyzTag = (x: number, y: number, z: number): Buffer => {
  const body = Buffer.alloc(12);
  body.writeInt32BE(s15Fixed16(x), 0);
  body.writeInt32BE(s15Fixed16(y), 4);
  body.writeInt32BE(s15Fixed16(z), 8);
  return tag('XYZ ', body);
};

const textDescriptionTag = (text: string): Buffer => {
  const ascii = Buffer.from(`${text}\0`, 'ascii');
  const count = Buffer.alloc(4);
  count.writeUInt32BE(ascii.length);
  // Unicode language and count (0, 0), ScriptCode code and count (0, 0) and its 67-byte field.
  return tag('desc', Buffer.concat([count, ascii, Buffer.alloc(4 + 4 + 2 + 1 + 67)]));
};

const srgbCurveTag = (points = 1024): Buffer => {
  const body = Buffer.alloc(4 + points * 2);
  body.writeUInt32BE(points, 0);
  for (let i = 0; i < points; i += 1) {
    const encoded = i / (points - 1);
    const linear = encoded <= 0.04045 ? encoded / 12.92 : ((encoded + 0.055) / 1.055) ** 2.4;
    body.writeUInt16BE(Math.round(linear * 65535), 4 + i * 2);
  }
  return tag('curv', body);
};

const pad4 = (bytes: Buffer): Buffer => (bytes.length % 4 === 0 ? bytes : Buffer.concat([bytes, Buffer.alloc(4 - (bytes.length % 4))]));

const buildProfile = (): Buffer => {
  const curve = srgbCurveTag();
  const tags: [string, Buffer][] = [
    ['desc', textDescriptionTag('sRGB IEC61966-2.1')],
    ['cprt', tag('text', Buffer.from('No copyright, use freely\0', 'ascii'))],
    ['wtpt', xyzTag(0.9642, 1.0, 0.8249)],
    ['rXYZ', xyzTag(0.4361, 0.2225, 0.0139)],
    ['gXYZ', xyzTag(0.3851, 0.7169, 0.0971)],
    ['bXYZ', xyzTag(0.1431, 0.0606, 0.7141)],
    ['rTRC', curve],
    ['gTRC', curve],
    ['bTRC', curve],
  ];
  const headerSize = 128;
  const tableSize = 4 + tags.length * 12;
  const table = Buffer.alloc(tableSize);
  table.writeUInt32BE(tags.length, 0);
  const bodies: Buffer[] = [];
  const offsets = new Map<Buffer, number>();
  let offset = headerSize + tableSize;
  tags.forEach(([signature, body], index) => {
    // The three curves are one and the same: stored once, pointed at thrice.
    let at = offsets.get(body);
    if (at === undefined) {
      at = offset;
      offsets.set(body, at);
      const padded = pad4(body);
      bodies.push(padded);
      offset += padded.length;
    }
    table.write(signature, 4 + index * 12, 'ascii');
    table.writeUInt32BE(at, 8 + index * 12);
    table.writeUInt32BE(body.length, 12 + index * 12);
  });
  const header = Buffer.alloc(headerSize);
  header.writeUInt32BE(offset, 0);
  header.writeUInt32BE(0x02100000, 8); // version 2.1
  header.write('mntr', 12, 'ascii');
  header.write('RGB ', 16, 'ascii');
  header.write('XYZ ', 20, 'ascii');
  [1998, 2, 9, 6, 49, 0].forEach((part, index) => header.writeUInt16BE(part, 24 + index * 2));
  header.write('acsp', 36, 'ascii');
  header.writeInt32BE(s15Fixed16(0.9642), 68);
  header.writeInt32BE(s15Fixed16(1.0), 72);
  header.writeInt32BE(s15Fixed16(0.8249), 76);
  return Buffer.concat([header, table, ...bodies]);
};

let profile: Buffer | undefined;

/** An sRGB ICC v2 profile (about 2.5 KB). */
export const srgbIccProfile = (): Buffer => (profile ??= buildProfile());
