// A line chart as a small hand-written SVG: a few series over a doubling x axis, no dependency.

export interface Series {
  name: string;
  color: string;
  /** One value per x, NaN where not measured. */
  values: readonly number[];
  dashed?: boolean;
}

export interface LineChart {
  title: string;
  xLabel: string;
  yLabel: string;
  /** Client counts; placed on a log2 scale, so doublings are evenly spaced. */
  xs: readonly number[];
  series: readonly Series[];
}

const WIDTH = 720;
const HEIGHT = 420;
const MARGIN = { top: 48, right: 200, bottom: 56, left: 72 };

const escapeXml = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** A round step for about five grid lines up to `max`. */
const niceStep = (max: number): number => {
  const rough = max / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  return ([1, 2, 2.5, 5, 10].map((factor) => factor * power).find((step) => step >= rough) ?? rough);
};

export const renderLineChart = ({ title, xLabel, yLabel, xs, series }: LineChart): string => {
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const finite = series.flatMap((s) => s.values.filter((value) => Number.isFinite(value)));
  const step = niceStep(Math.max(1, ...finite) * 1.05);
  const yMax = Math.ceil((Math.max(1, ...finite) * 1.05) / step) * step;
  const logs = xs.map((x) => Math.log2(x));
  const [low, high] = [Math.min(...logs), Math.max(...logs)];
  const xOf = (x: number) => MARGIN.left + (high === low ? plotWidth / 2 : ((Math.log2(x) - low) / (high - low)) * plotWidth);
  const yOf = (y: number) => MARGIN.top + plotHeight - (y / yMax) * plotHeight;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${MARGIN.left}" y="24" font-size="15" font-weight="bold">${escapeXml(title)}</text>`,
  ];
  for (let y = 0; y <= yMax + step / 2; y += step) {
    parts.push(
      `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${yOf(y).toFixed(1)}" y2="${yOf(y).toFixed(1)}" stroke="#ddd"/>`,
      `<text x="${MARGIN.left - 8}" y="${(yOf(y) + 4).toFixed(1)}" text-anchor="end">${Math.round(y).toLocaleString('en-US')}</text>`,
    );
  }
  for (const x of xs) {
    parts.push(
      `<line x1="${xOf(x).toFixed(1)}" x2="${xOf(x).toFixed(1)}" y1="${MARGIN.top}" y2="${MARGIN.top + plotHeight}" stroke="#eee"/>`,
      `<text x="${xOf(x).toFixed(1)}" y="${MARGIN.top + plotHeight + 18}" text-anchor="middle">${x}</text>`,
    );
  }
  parts.push(
    `<line x1="${MARGIN.left}" x2="${MARGIN.left}" y1="${MARGIN.top}" y2="${MARGIN.top + plotHeight}" stroke="#444"/>`,
    `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${MARGIN.top + plotHeight}" y2="${MARGIN.top + plotHeight}" stroke="#444"/>`,
    `<text x="${MARGIN.left + plotWidth / 2}" y="${HEIGHT - 14}" text-anchor="middle">${escapeXml(xLabel)}</text>`,
    `<text transform="translate(18 ${MARGIN.top + plotHeight / 2}) rotate(-90)" text-anchor="middle">${escapeXml(yLabel)}</text>`,
  );
  series.forEach(({ name, color, values, dashed }, index) => {
    const points = xs.flatMap((x, i) => (Number.isFinite(values[i]) ? [[xOf(x), yOf(values[i]!)] as const] : []));
    const dash = dashed ? ' stroke-dasharray="6 4"' : '';
    if (points.length > 1) {
      parts.push(`<polyline fill="none" stroke="${color}" stroke-width="2.5"${dash} points="${points.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ')}"/>`);
    }
    for (const [x, y] of points) parts.push(`<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="4" fill="${color}"/>`);
    const legendY = MARGIN.top + 10 + index * 22;
    const legendX = MARGIN.left + plotWidth + 20;
    parts.push(
      `<line x1="${legendX}" x2="${legendX + 24}" y1="${legendY}" y2="${legendY}" stroke="${color}" stroke-width="2.5"${dash}/>`,
      `<text x="${legendX + 32}" y="${legendY + 4}">${escapeXml(name)}</text>`,
    );
  });
  parts.push('</svg>', '');
  return parts.join('\n');
};
