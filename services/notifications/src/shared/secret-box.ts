import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const VERSION = 'v1';
const IV_BYTES = 12;
const KEY_BYTES = 32;

/**
 * Encrypts webhook signing secrets at rest with AES-256-GCM. Each sealed value is bound to its
 * row (`context`, the endpoint id, as additional authenticated data), so a secret copied onto
 * another endpoint's row fails to open instead of signing for it.
 */
export interface SecretBox {
  seal: (plaintext: string, context: string) => string;
  open: (sealed: string, context: string) => string;
}

export const createSecretBox = (key: Buffer): SecretBox => {
  if (key.length !== KEY_BYTES) throw new Error(`The secrets key must be ${KEY_BYTES} bytes, not ${key.length}.`);
  return {
    seal: (plaintext, context) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(context));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
    },
    open: (sealed, context) => {
      const [version, iv, tag, ciphertext] = sealed.split('.');
      if (version !== VERSION || iv === undefined || tag === undefined || ciphertext === undefined) throw new Error('Not a sealed secret.');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
        .setAAD(Buffer.from(context))
        .setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
};

// Written aside, then linked into place: a process starting at the same moment sees no file or a
// whole one, and the first link wins.
const createKeyFile = (file: string): void => {
  mkdirSync(dirname(file), { recursive: true });
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(draft, `${randomBytes(KEY_BYTES).toString('base64')}\n`, { mode: 0o600 });
  try {
    linkSync(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(draft);
  }
};

/**
 * The key from configuration (base64), or, on one machine where none is configured, the one kept
 * in `file`: created with mode 0600 on first start and read by every later start and process, so
 * secrets stay readable across restarts. Several processes starting at once agree on one file.
 */
export const loadSecretsKey = (configured: string | undefined, file: string): Buffer => {
  if (configured !== undefined) return Buffer.from(configured, 'base64');
  if (!existsSync(file)) createKeyFile(file);
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== KEY_BYTES) throw new Error(`${file} does not hold base64 of ${KEY_BYTES} bytes; remove it only if no webhook secret was sealed with it.`);
  return key;
};
