import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import nodemailer from 'nodemailer';

/** One e-mail as the worker hands it over: every header value already safe (see message-templates.ts). */
export interface OutgoingMail {
  /** `<msg_…@domain>`, the same on every attempt. */
  messageId: string;
  from: { name: string; address: string };
  replyTo: string | null;
  to: string[];
  cc: string[];
  subject: string;
  text: string;
  html: string;
  attachments: { filename: string; contentType: string; content: Buffer }[];
}

/**
 * What became of one attempt: `sent` (with the addresses the server refused while taking the
 * rest, and the .eml path when written to a file), or `failed`, permanent (a 5xx answer) or not.
 */
export type MailOutcome =
  | { outcome: 'sent'; refused: { address: string; permanent: boolean }[]; file: string | null; response: string | null }
  | { outcome: 'failed'; permanent: boolean; error: string; refused: string[] };

export interface MailTransport {
  send(mail: OutgoingMail): Promise<MailOutcome>;
  close(): void;
  /** `smtp://host:port` without credentials, or the folder of .eml files. */
  readonly describe: string;
}

interface SmtpError extends Error {
  code?: string;
  responseCode?: number;
  response?: string;
  permanent?: boolean;
  rejected?: string[];
}

/** Nodemailer's message: addresses as objects, so nothing in them is parsed as a list or a name. */
const mailOptions = (mail: OutgoingMail) => ({
  messageId: mail.messageId,
  from: mail.from,
  ...(mail.replyTo ? { replyTo: { name: '', address: mail.replyTo } } : {}),
  to: mail.to.map((address) => ({ name: '', address })),
  cc: mail.cc.map((address) => ({ name: '', address })),
  subject: mail.subject,
  text: mail.text,
  html: mail.html,
  attachments: mail.attachments,
  // Never read a file or URL named in the message: everything it carries is given here.
  disableFileAccess: true,
  disableUrlAccess: true,
});

/** Over SMTP (`SMTP_URL`): one connection per message, so a message is never stuck behind another's broken connection. */
export const smtpTransport = (url: string, timeoutMs: number): MailTransport => {
  const transporter = nodemailer.createTransport({
    url,
    connectionTimeout: Math.min(timeoutMs, 10_000),
    greetingTimeout: Math.min(timeoutMs, 10_000),
    socketTimeout: timeoutMs,
  });
  const safe = new URL(url);
  return {
    describe: `${safe.protocol}//${safe.host}`,
    send: async (mail) => {
      try {
        const info = await transporter.sendMail(mailOptions(mail));
        const rejectedErrors = ((info as { rejectedErrors?: SmtpError[] }).rejectedErrors ?? []) as SmtpError[];
        const refused = (info.rejected ?? []).map((entry) => {
          const address = typeof entry === 'string' ? entry : (entry as { address: string }).address;
          const error = rejectedErrors.find((each) => each.rejected?.includes(address) || each.message.includes(address));
          return { address, permanent: error?.permanent ?? (error?.responseCode ?? 550) >= 500 };
        });
        return { outcome: 'sent', refused, file: null, response: info.response ?? null };
      } catch (caught) {
        const error = caught as SmtpError;
        const permanent = error.permanent ?? (error.responseCode !== undefined && error.responseCode >= 500 && error.responseCode < 600);
        return {
          outcome: 'failed',
          permanent,
          error: (error.response ?? error.message ?? String(caught)).slice(0, 500),
          refused: error.rejected ?? [],
        };
      }
    },
    close: () => transporter.close(),
  };
};

/**
 * Without `SMTP_URL`: each message is written as `<dir>/<msg_…>.eml` (RFC 5322, as it would have
 * been sent), so a newcomer can open what would have gone out. Writing the same message again
 * overwrites its file: one file per message.
 */
export const emlFileTransport = (dir: string): MailTransport => {
  const transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  const folder = resolve(dir);
  return {
    describe: folder,
    send: async (mail) => {
      const info = await transporter.sendMail(mailOptions(mail));
      await mkdir(folder, { recursive: true });
      const name = mail.messageId.replace(/^<|>$/g, '').split('@')[0]!.replace(/[^A-Za-z0-9_-]/g, '');
      const file = join(folder, `${name}.eml`);
      await writeFile(file, info.message as Buffer);
      return { outcome: 'sent', refused: [], file, response: null };
    },
    close: () => transporter.close(),
  };
};
