import { execFile } from 'node:child_process';

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
