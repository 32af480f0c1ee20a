import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const run = (command: string, args: string[], input: Buffer): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = execFile(command, args, { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${command} failed (is poppler-utils installed?): ${stderr || error.message}`)) : resolve(stdout),
    );
    child.stdin!.end(input);
  });

/** The text a PDF reader extracts (poppler's pdftotext), lines kept as laid out. */
export const pdfText = (pdf: Buffer): Promise<string> => run('pdftotext', ['-layout', '-enc', 'UTF-8', '-', '-'], pdf);

/** `pdfinfo` fields of a PDF: `Pages`, `Page size`, `Tagged`, `CreationDate`, ... */
export const pdfInfo = async (pdf: Buffer): Promise<Record<string, string>> => {
  const text = await run('pdfinfo', ['-'], pdf);
  return Object.fromEntries(text.split('\n').filter((line) => line.includes(':')).map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]));
};

/** Each page as a PNG at `dpi` (poppler's pdftoppm, which reads only files), as a screen or a phone camera sees it. */
export const pdfPagesAsPng = async (pdf: Buffer, dpi = 200): Promise<Buffer[]> => {
  const folder = await mkdtemp(join(tmpdir(), 'pdf-pages-'));
  try {
    await writeFile(join(folder, 'in.pdf'), pdf);
    await run('pdftoppm', ['-png', '-r', String(dpi), join(folder, 'in.pdf'), join(folder, 'page')], Buffer.alloc(0));
    const pages = (await readdir(folder)).filter((name) => name.endsWith('.png')).sort();
    return await Promise.all(pages.map((name) => readFile(join(folder, name))));
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
};

/** A word as poppler places it on its page (points from the top left). */
export interface PdfWord {
  page: number;
  text: string;
  xMin: number;
  xMax: number;
}

/** Every word of a PDF with its box (`pdftotext -bbox`), to measure how the text was set. */
export const pdfWords = async (pdf: Buffer): Promise<PdfWord[]> => {
  const html = await run('pdftotext', ['-bbox', '-enc', 'UTF-8', '-', '-'], pdf);
  const words: PdfWord[] = [];
  let page = 0;
  const unescape = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
  for (const match of html.matchAll(/<page |<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)<\/word>/g)) {
    if (match[0] === '<page ') page += 1;
    else words.push({ page, text: unescape(match[3]!), xMin: Number(match[1]), xMax: Number(match[2]) });
  }
  return words;
};
