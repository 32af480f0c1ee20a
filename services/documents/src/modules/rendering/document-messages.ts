import { defineTranslations } from '@invoicing/i18n';
import { de } from './messages/de.ts';
import { en } from './messages/en.ts';
import { es } from './messages/es.ts';
import { fr } from './messages/fr.ts';
import { it } from './messages/it.ts';
import { nl } from './messages/nl.ts';

/** What the PDF and the public page say, in the invoice's language. */
export const documentMessages = defineTranslations<typeof en>({ en, de, fr, es, it, nl });
export type DocumentMessage = keyof typeof en;
