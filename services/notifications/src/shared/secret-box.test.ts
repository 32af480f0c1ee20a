import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSecretBox, loadSecretsKey } from './secret-box.ts';

const dir = mkdtempSync(join(tmpdir(), 'secrets-key-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('createSecretBox', () => {
  const sut = createSecretBox(randomBytes(32));
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw8Fx2T5NExAk=';

  it('opens what it sealed for the same row, and the sealed text does not contain the secret', () => {
    const sealed = sut.seal(secret, 'endpoint-1');
    expect(sealed).not.toContain('MfKQ9r8G');
    expect(sut.seal(secret, 'endpoint-1')).not.toBe(sealed);
    expect(sut.open(sealed, 'endpoint-1')).toBe(secret);
  });

  it('refuses a sealed secret moved to another row, tampered with, or sealed under another key', () => {
    const sealed = sut.seal(secret, 'endpoint-1');
    expect(() => sut.open(sealed, 'endpoint-2')).toThrow();
    const [version, iv, tag, body] = sealed.split('.') as [string, string, string, string];
    const flipped = `${body.slice(0, -2)}${body.at(-2) === 'A' ? 'B' : 'A'}${body.at(-1)}`;
    expect(() => sut.open([version, iv, tag, flipped].join('.'), 'endpoint-1')).toThrow();
    expect(() => createSecretBox(randomBytes(32)).open(sealed, 'endpoint-1')).toThrow();
    expect(() => sut.open('plain', 'endpoint-1')).toThrow('Not a sealed secret.');
  });
});

describe('loadSecretsKey', () => {
  it('uses the configured key', () => {
    const key = randomBytes(32);
    expect(loadSecretsKey(key.toString('base64'), join(dir, 'unused.key'))).toEqual(key);
  });

  it('creates a private key file once and reads the same key on every later start', () => {
    const file = join(dir, 'nested', 'webhook-secrets.key');
    const first = loadSecretsKey(undefined, file);
    expect(first).toHaveLength(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadSecretsKey(undefined, file)).toEqual(first);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64')).toEqual(first);
  });

  it('refuses a key file that holds something else', () => {
    const file = join(dir, 'short.key');
    writeFileSync(file, 'c2hvcnQ=\n');
    expect(() => loadSecretsKey(undefined, file)).toThrow('does not hold base64 of 32 bytes');
  });
});
