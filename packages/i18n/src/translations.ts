import { languageOf, SUPPORTED_LANGUAGES, type SupportedLanguage } from '@invoicing/contracts';
import i18next from 'i18next';

/** One language's messages: flat keys, values in i18next's syntax (`{{name}}`, plural keys `_one`/`_other`). */
export type Catalogue = Readonly<Record<string, string>>;

/** The same keys in every language we write in: a message missing in one language fails to compile. */
export type Catalogues<English extends Catalogue> = { readonly [Language in SupportedLanguage]: { readonly [Key in keyof English]: string } };

/** Values interpolated into a message; `count` picks the plural form of the message's language. */
export type MessageValues = Readonly<Record<string, string | number>> & { count?: number };

/** A message in one locale's language. Values are inserted as given: escaping belongs to the output (Handlebars for HTML). */
export type Translate<English extends Catalogue> = (key: PluralBase<keyof English & string>, values?: MessageValues) => string;

/** `items_one` and `items_other` are asked for as `items`, with a `count`. */
type PluralBase<Key extends string> = Key extends `${infer Base}_${'zero' | 'one' | 'two' | 'few' | 'many' | 'other'}` ? Base : Key;

/**
 * The translator of one set of catalogues (a service's documents, its e-mails): `translate(locale)`
 * gives the messages of that locale's language, falling back to English for a message that is
 * empty. Synchronous: every catalogue is in memory, there is nothing to load.
 */
export const defineTranslations = <English extends Catalogue>(catalogues: Catalogues<English>) => {
  const instance = i18next.createInstance();
  void instance.init({
    initAsync: false,
    resources: Object.fromEntries(SUPPORTED_LANGUAGES.map((language) => [language, { translation: catalogues[language] }])),
    supportedLngs: [...SUPPORTED_LANGUAGES],
    fallbackLng: 'en',
    keySeparator: false,
    nsSeparator: false,
    returnEmptyString: false,
    interpolation: { escapeValue: false },
  });
  const translators = new Map<SupportedLanguage, Translate<English>>();
  return (locale: string): Translate<English> => {
    const language = languageOf(locale);
    let translate = translators.get(language);
    if (!translate) {
      // i18next's typed `t` checks keys against a global resource declaration; ours are checked by `Catalogues`.
      const t = instance.getFixedT(language) as unknown as (key: string, values: MessageValues) => string;
      translate = (key, values = {}) => {
        if (!instance.exists(key, { lng: language, ...values })) throw new Error(`No message "${key}" in the ${language} catalogue`);
        return t(key, values);
      };
      translators.set(language, translate);
    }
    return translate;
  };
};
