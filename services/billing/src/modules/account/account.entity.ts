import type { Address, AttachmentKind, EinvoiceRequired, PaymentMeans, PdfFormat, TaxRepresentative } from '@invoicing/contracts';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

export const AccountEntity = defineEntity({
  name: 'Account',
  tableName: 'accounts',
  properties: {
    workspaceId: p.uuid().primary(),
    businessName: p.text().nullable(),
    email: p.text().nullable(),
    address: p.json<Address>(),
    taxId: p.text().nullable(),
    defaultCurrency: p.string().length(3),
    timezone: p.text(),
    numberFormat: p.text(),
    paymentInstructions: p.text().nullable(),
    brandColor: p.text().nullable(),
    phone: p.text().nullable(),
    contactName: p.text().nullable(),
    electronicAddress: p.text().nullable(),
    electronicAddressScheme: p.text().nullable(),
    /** The ways buyers may pay (BG-16), in order; `payment_account` reads as its first credit transfer. */
    paymentMeans: p.json<PaymentMeans[]>(),
    tradingName: p.text().nullable(),
    registrationId: p.text().nullable(),
    registrationIdScheme: p.text().nullable(),
    legalInfo: p.text().nullable(),
    taxRepresentative: p.json<TaxRepresentative>().nullable(),
    pdfFormat: p.enum<readonly PdfFormat[]>(['standard', 'facturx']),
    locale: p.text(),
    einvoiceRequired: p.enum<readonly EinvoiceRequired[]>(['none', 'en16931', 'xrechnung']),
    // E-mail delivery settings.
    sendOnFinalize: p.boolean(),
    emailAttachments: p.json<AttachmentKind[]>(),
    reminderDays: p.json<number[]>(),
    replyTo: p.text().nullable(),
    createdAt: p.datetime(3),
    updatedAt: p.datetime(3),
  },
});
export type AccountRow = InferEntity<typeof AccountEntity>;
