import { describe, expect, it } from 'vitest';
import { defineTranslations } from './translations.ts';

const en = { greeting: 'Hello {{name}}', lines_one: '{{count}} line', lines_other: '{{count}} lines', empty: 'Fallback' };
const sut = defineTranslations<typeof en>({
  en,
  de: { greeting: 'Hallo {{name}}', lines_one: '{{count}} Position', lines_other: '{{count}} Positionen', empty: '' },
  fr: { greeting: 'Bonjour {{name}}', lines_one: '{{count}} ligne', lines_other: '{{count}} lignes', empty: 'Repli' },
  es: { greeting: 'Hola {{name}}', lines_one: '{{count}} línea', lines_other: '{{count}} líneas', empty: 'Respaldo' },
  it: { greeting: 'Ciao {{name}}', lines_one: '{{count}} riga', lines_other: '{{count}} righe', empty: 'Riserva' },
  nl: { greeting: 'Hallo {{name}}', lines_one: '{{count}} regel', lines_other: '{{count}} regels', empty: 'Terugval' },
});

describe('defineTranslations', () => {
  it('speaks the language of the locale, whatever its region', () => {
    expect(sut('de-AT')('greeting', { name: 'Anna' })).toBe('Hallo Anna');
    expect(sut('fr-CH')('greeting', { name: 'Anna' })).toBe('Bonjour Anna');
  });

  it('picks plural forms by the language rules', () => {
    expect(sut('de')('lines', { count: 1 })).toBe('1 Position');
    expect(sut('de')('lines', { count: 3 })).toBe('3 Positionen');
    // French counts 0 as singular.
    expect(sut('fr')('lines', { count: 0 })).toBe('0 ligne');
  });

  it('inserts values as given, leaving escaping to the output', () => {
    expect(sut('en')('greeting', { name: '<b>&</b>' })).toBe('Hello <b>&</b>');
  });

  it('falls back to English for an empty message', () => {
    expect(sut('de')('empty')).toBe('Fallback');
  });

  it('refuses an unknown message instead of printing its key', () => {
    expect(() => sut('en')('nope' as 'greeting')).toThrow(/No message "nope"/);
  });
});
