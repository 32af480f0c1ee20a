/** A table printed with aligned columns; columns of figures are right-aligned. */
export interface Table {
  title: string;
  columns: readonly string[];
  rows: readonly (readonly string[])[];
  notes?: readonly string[];
}

const isFigure = (cell: string) => /^([+-]?[\d.,]+( ?(ms|%|µs|MB|x|\/s))?( (pass|FAIL))?|–|)$/.test(cell);

const rightAlignedColumns = ({ columns, rows }: Table) =>
  columns.map((_, index) => rows.length > 0 && rows.every((row) => isFigure(row[index] ?? '')));

export const renderTable = (table: Table): string => {
  const { title, columns, rows, notes = [] } = table;
  const widths = columns.map((column, index) => Math.max(column.length, ...rows.map((row) => (row[index] ?? '').length)));
  const rightAligned = rightAlignedColumns(table);
  const line = (cells: readonly string[]) =>
    cells.map((cell, index) => (rightAligned[index] ? cell.padStart(widths[index]!) : cell.padEnd(widths[index]!))).join('  ').trimEnd();
  return [title, '', line(columns), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line), '', ...notes].join('\n');
};

const escapeCell = (cell: string) => cell.replaceAll('|', '\\|');

/** The same table in Markdown, its title a heading of `level`. */
export const renderMarkdownTable = (table: Table, level = 3): string => {
  const { title, columns, rows, notes = [] } = table;
  const rightAligned = rightAlignedColumns(table);
  const line = (cells: readonly string[]) => `| ${cells.map(escapeCell).join(' | ')} |`;
  return [
    `${'#'.repeat(level)} ${title}`,
    '',
    line(columns),
    `|${rightAligned.map((right) => (right ? '---:' : '---')).join('|')}|`,
    ...rows.map(line),
    ...(notes.length ? ['', ...notes.map((note) => `- ${note}`)] : []),
  ].join('\n');
};
