import { describe, expect, it } from 'vitest';
import { canonicalLocale, languageOf, Locale } from './locales.ts';

describe('canonicalLocale', () => {
  it.each([
    ['de', 'de'],
    ['de-at', 'de-AT'],
    ['EN-gb', 'en-GB'],
    ['fr-CH', 'fr-CH'],
    ['nl', 'nl'],
  ])('%s → %s', (tag, expected) => {
    expect(canonicalLocale(tag)).toBe(expected);
  });

  it.each(['pt', 'pt-BR', 'de-Latn-DE', 'en-US-u-nu-arab', 'xx', '', 'de_DE', 'not a tag'])('refuses %j', (tag) => {
    expect(canonicalLocale(tag)).toBeNull();
  });

  it('answers the language of a locale', () => {
    expect(languageOf('de-AT')).toBe('de');
  });

  it('names the languages in its error', () => {
    const result = Locale.safeParse('pt-BR');
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/en, de, fr, es, it, nl/);
    expect(Locale.parse('fr-ch')).toBe('fr-CH');
  });
});
