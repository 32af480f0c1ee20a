import { mark } from './format.ts';
import type { ReportFile, TargetResult } from './section.ts';
import { renderMarkdownTable, type Table } from './table.ts';

export interface SectionOutcome {
  name: string;
  tables: Table[];
  targets: TargetResult[];
  serverErrors: number;
  files: ReportFile[];
  /** Why it stopped, when it failed. */
  failure?: string;
}

export interface ReportInput {
  machine: readonly [string, string][];
  /** Every BENCH_* setting as it ran, and whether it differs from the default. */
  settings: readonly { name: string; value: string; isDefault: boolean }[];
  sections: readonly SectionOutcome[];
  elapsedSeconds: number;
}

/** bench/REPORT.md: the machine, the settings, every target with its baseline, then each section's tables. */
export const renderReport = ({ machine, settings, sections, elapsedSeconds }: ReportInput): string => {
  const serverErrors = sections.reduce((sum, section) => sum + section.serverErrors, 0);
  const targets: TargetResult[] = [
    ...sections.flatMap((section) => section.targets),
    {
      target: 'zero 5xx answers (and failed requests) throughout',
      figure: String(serverErrors),
      baseline: '0',
      ratio: '',
      pass: serverErrors === 0,
    },
  ];
  const changed = settings.filter((setting) => !setting.isDefault);
  const failed = sections.filter((section) => section.failure);
  return [
    '# Benchmark report',
    '',
    `Written by \`npm run bench\` in ${Math.round(elapsedSeconds)} s, sections ${sections.map((section) => section.name).join(', ')}.`,
    changed.length
      ? `A shortened run: ${changed.map(({ name, value }) => `\`${name}=${value}\``).join(', ')}; the figures are indicative, the full benchmark runs with the defaults on an idle machine.`
      : 'All settings at their defaults.',
    '',
    renderMarkdownTable({ title: 'Machine', columns: ['', ''], rows: machine }, 2),
    '',
    renderMarkdownTable({ title: 'Settings', columns: ['setting', 'value'], rows: settings.map(({ name, value, isDefault }) => [name, `${value}${isDefault ? '' : ' (not the default)'}`]) }, 2),
    '',
    renderMarkdownTable(
      {
        title: 'Targets',
        columns: ['target', 'figure', 'baseline (same run)', 'ratio', 'result'],
        rows: targets.map(({ target, figure, baseline, ratio, pass }) => [target, figure, baseline, ratio, mark(pass)]),
        notes: failed.length ? failed.map((section) => `Section ${section.name} failed, so its targets are missing: ${section.failure}`) : [],
      },
      2,
    ),
    ...sections.flatMap((section) => [
      '',
      `## Section ${section.name}`,
      ...(section.failure ? ['', `Failed: ${section.failure}`] : []),
      ...section.files.flatMap((file) => ['', file.reference]),
      ...section.tables.flatMap((table) => ['', renderMarkdownTable(table, 3)]),
    ]),
    '',
  ].join('\n');
};
