export * from './formats.ts';
export * from './translations.ts';
