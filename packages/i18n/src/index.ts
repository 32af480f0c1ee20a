export * from './brand-colors.ts';
export * from './formats.ts';
export * from './translations.ts';
