import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { VALIDATOR } from '../../services/documents/test/support/einvoice-validator.ts';

/** The CEN TC 434 example invoices shipped with the validator's artefacts (validation artefacts 1.3.16). */
export const EXAMPLES_DIR = join(process.env.EINVOICE_ARTEFACTS ?? join(dirname(VALIDATOR), 'artefacts'));

const SYNTAX_DIRS = { ubl: join(EXAMPLES_DIR, 'ubl', 'examples'), cii: join(EXAMPLES_DIR, 'cii', 'examples') } as const;

/** The path of an example by its file name, in whichever syntax folder holds it. */
export const exampleFile = (name: string): string => join(SYNTAX_DIRS[/\.xml$/i.test(name) && /^(CII|XRechnung|huf)/.test(name) ? 'cii' : 'ubl'], name);

/** Every example file: UBL first, then CII, each sorted by name. */
export const listExamples = (): { name: string; syntax: 'ubl' | 'cii'; path: string }[] =>
  (['ubl', 'cii'] as const).flatMap((syntax) =>
    readdirSync(SYNTAX_DIRS[syntax])
      .filter((name) => /\.xml$/i.test(name))
      .sort()
      .map((name) => ({ name, syntax, path: join(SYNTAX_DIRS[syntax], name) })),
  );
