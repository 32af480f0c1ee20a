import { z } from 'zod';

/** The languages documents and e-mails are written in (decisions.md, "Language and legal contents"). */
export const SUPPORTED_LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'nl'] as const;
export type SupportedLanguage = (typeof SUPPORTED_LANGUAGES)[number];

/** The account's locale until it sets one: CLDR's `en` (United States formats). */
export const DEFAULT_LOCALE = 'en';

const isSupportedLanguage = (language: string): language is SupportedLanguage =>
  (SUPPORTED_LANGUAGES as readonly string[]).includes(language);

/**
 * A BCP 47 tag in its canonical form (`de-at` → `de-AT`) when its language is one we write in,
 * else null. A region picks number and date formats (`de-AT`, `fr-CH`, `en-GB`); scripts,
 * variants and extensions are refused, since no document differs by them.
 */
export const canonicalLocale = (tag: string): string | null => {
  let locale: Intl.Locale;
  try {
    locale = new Intl.Locale(Intl.getCanonicalLocales(tag)[0] ?? '');
  } catch {
    return null;
  }
  if (!isSupportedLanguage(locale.language)) return null;
  const bare = locale.region ? `${locale.language}-${locale.region}` : locale.language;
  return bare === locale.toString() ? bare : null;
};

/** The language a canonical locale is written in: `de-AT` → `de`. */
export const languageOf = (locale: string): SupportedLanguage => {
  const language = new Intl.Locale(locale).language;
  return isSupportedLanguage(language) ? language : 'en';
};

const LOCALE_RULE = `must be a BCP 47 tag whose language is one of ${SUPPORTED_LANGUAGES.join(', ')}, optionally with a region (de-AT, fr-CH, en-GB)`;
/** The shape `canonicalLocale` accepts, for the document: a language we write in, any case, and an optional region. */
const LOCALE_PATTERN = new RegExp(
  `^(?:${SUPPORTED_LANGUAGES.map((language) => [...language].map((letter) => `[${letter}${letter.toUpperCase()}]`).join('')).join('|')})(?:-(?:[A-Za-z]{2}|[0-9]{3}))?$`,
);

export const Locale = z
  .string()
  .regex(LOCALE_PATTERN, LOCALE_RULE)
  .transform((tag, ctx) => {
    const locale = canonicalLocale(tag);
    if (locale === null) {
      ctx.addIssue({ code: 'custom', message: LOCALE_RULE });
      return z.NEVER;
    }
    return locale;
  })
  .meta({
    description: `BCP 47 language tag: the language (${SUPPORTED_LANGUAGES.join(', ')}) of documents and e-mails, and with a region the number and date formats (CLDR) they use.`,
    example: 'de-DE',
  });
