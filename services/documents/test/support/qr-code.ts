import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';

// jsqr is CommonJS typed as an ES module: Node hands its function over as the default import.
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

/** The text of the QR code in a PNG image, as a banking app's scanner reads it; null when there is none. */
export const decodeQrCode = (png: Buffer): string | null => {
  const image = PNG.sync.read(png);
  // jsQR may take a finder-like pattern of the layout for a code and decode nothing: that is no code.
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data || null;
};

/** The first QR code on any of the pages, as a scanner pointed at each page in turn would read it. */
export const decodeQrCodeOnPages = (pages: readonly Buffer[]): string | null => {
  for (const page of pages) {
    const text = decodeQrCode(page);
    if (text !== null) return text;
  }
  return null;
};
