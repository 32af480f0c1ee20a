/** A table printed with aligned columns; columns of figures are right-aligned. */
export interface Table {
  title: string;
  columns: readonly string[];
  rows: readonly (readonly string[])[];
  notes?: readonly string[];
}

const isFigure = (cell: string) => /^[+-]?[\d.,]+( ?(ms|%))?( (pass|FAIL))?$/.test(cell);

export const renderTable = ({ title, columns, rows, notes = [] }: Table): string => {
  const widths = columns.map((column, index) => Math.max(column.length, ...rows.map((row) => (row[index] ?? '').length)));
  const rightAligned = columns.map((_, index) => rows.length > 0 && rows.every((row) => isFigure(row[index] ?? '')));
  const line = (cells: readonly string[]) =>
    cells.map((cell, index) => (rightAligned[index] ? cell.padStart(widths[index]!) : cell.padEnd(widths[index]!))).join('  ').trimEnd();
  return [title, '', line(columns), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line), '', ...notes].join('\n');
};
