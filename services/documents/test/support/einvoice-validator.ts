import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The official EN 16931 validator (`shared/einvoice/validate.sh`: XML Schema, CEN schematron,
 * KoSIT XRechnung schematron, Factur-X XMP) beside the repository, or where EINVOICE_VALIDATOR says.
 */
export const VALIDATOR = process.env.EINVOICE_VALIDATOR ?? resolve(import.meta.dirname, '../../../../../shared/einvoice/validate.sh');

export interface Validation {
  name: string;
  fatal: number;
  /** The validator's report: every failed rule, then `einvoice: N fatal, M warnings`. */
  report: string;
}

export interface DocumentToValidate {
  name: string;
  bytes: Buffer;
  xrechnung: boolean;
}

// Results are kept by the document's SHA-256 (and the rule set), so a rerun with unchanged
// exports spends no JVM time; the validator's rules are a fixed release, so a result never goes stale.
const CACHE_DIR = join(tmpdir(), 'einvoice-validations');

const runValidator = (file: string, xrechnung: boolean): Promise<{ code: number; output: string }> =>
  new Promise((done) => {
    execFile('bash', [VALIDATOR, file, ...(xrechnung ? ['--xrechnung'] : [])], { maxBuffer: 8 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 2) : 0;
      done({ code, output: `${stdout}${stderr}` });
    });
  });

const validateOne = async ({ name, bytes, xrechnung }: DocumentToValidate): Promise<Validation> => {
  const digest = createHash('sha256').update(bytes).digest('hex');
  const cached = join(CACHE_DIR, `${digest}${xrechnung ? '.xrechnung' : ''}.txt`);
  let report = existsSync(cached) ? readFileSync(cached, 'utf8') : undefined;
  if (report === undefined) {
    const file = join(CACHE_DIR, `${digest}.${bytes.subarray(0, 5).toString('latin1') === '%PDF-' ? 'pdf' : 'xml'}`);
    writeFileSync(file, bytes);
    const { code, output } = await runValidator(file, xrechnung);
    // Exit 2: a tool or artefact is missing and nothing was judged; that is a broken set-up, not a verdict.
    if (code === 2) throw new Error(`The e-invoice validator could not judge ${name}:\n${output}`);
    report = output;
    writeFileSync(cached, report);
  }
  const fatal = Number(/einvoice: (\d+) fatal/.exec(report)?.[1] ?? Number.NaN);
  return { name, fatal, report };
};

/** Validates every document, `parallel` JVMs at a time (one per core is what pays). */
export const validateEinvoices = async (documents: DocumentToValidate[], parallel = 2): Promise<Validation[]> => {
  if (!existsSync(VALIDATOR)) throw new Error(`The official e-invoice validator is not at ${VALIDATOR}; set EINVOICE_VALIDATOR`);
  mkdirSync(CACHE_DIR, { recursive: true });
  const results: Validation[] = new Array(documents.length);
  let next = 0;
  const worker = async () => {
    while (next < documents.length) {
      const index = next++;
      results[index] = await validateOne(documents[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, documents.length) }, worker));
  return results;
};
