/** How figures read in every table of the report. */
export const mark = (ok: boolean) => (ok ? 'pass' : 'FAIL');
export const perSecond = (value: number) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '–');
export const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(1)} ms` : '–');
/** CPU seconds as microseconds. */
export const micros = (seconds: number | undefined) => (seconds !== undefined && Number.isFinite(seconds) ? `${Math.round(seconds * 1e6).toLocaleString('en-US')} µs` : '–');
export const megabytes = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
export const times = (ratio: number) => (Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : '–');
