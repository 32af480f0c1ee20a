/** A table printed with aligned columns; numbers right-aligned. */
export interface Table {
  title: string;
  columns: readonly string[];
  rows: readonly (readonly string[])[];
  notes?: readonly string[];
}

const isNumeric = (cell: string) => /^[+-]?[\d.,]+( ?(ms|%))?( (pass|FAIL))?$/.test(cell);

export const renderTable = ({ title, columns, rows, notes = [] }: Table): string => {
  const widths = columns.map((column, index) => Math.max(column.length, ...rows.map((row) => (row[index] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, index) => (isNumeric(cell) ? cell.padStart(widths[index]!) : cell.padEnd(widths[index]!))).join('  ');
  return [title, '', line(columns), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line), '', ...notes].join('\n');
};
