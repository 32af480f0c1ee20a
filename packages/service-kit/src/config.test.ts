import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, parseConfig, serviceSettings } from './config.ts';

const Settings = z.object({
  ...serviceSettings,
  SMTP_URL: z.string().optional(),
});
const TOKEN = 'config-test-internal-token-0123456789abcdef';
const folder = mkdtempSync(join(tmpdir(), 'config-'));
const secretFile = (name: string, contents: string) => {
  const path = join(folder, name);
  writeFileSync(path, contents, { mode: 0o600 });
  return path;
};

afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('parseConfig', () => {
  it('reads a setting from the file <NAME>_FILE names, as a compose or Docker secret is mounted, without its final line break', () => {
    const config = parseConfig(Settings, {
      INTERNAL_TOKEN_FILE: secretFile('internal-token', `${TOKEN}\n`),
      SMTP_URL_FILE: secretFile('smtp-url', 'smtps://user:p%40ss@smtp.example.com:465\r\n'),
    });
    expect(config.INTERNAL_TOKEN).toBe(TOKEN);
    expect(config.SMTP_URL).toBe('smtps://user:p%40ss@smtp.example.com:465');
  });

  it('checks what a file holds like the variable itself, and an empty file is an empty value', () => {
    expect(() => parseConfig(Settings, { INTERNAL_TOKEN_FILE: secretFile('short', 'too-short\n') })).toThrow(/INTERNAL_TOKEN: must be at least 32 characters/);
    expect(parseConfig(Settings, { INTERNAL_TOKEN: TOKEN, SMTP_URL_FILE: secretFile('empty', '') }).SMTP_URL).toBe('');
  });

  it('refuses a setting given both ways, and names a file it cannot read, without showing either value', () => {
    const both = () => parseConfig(Settings, { INTERNAL_TOKEN: TOKEN, INTERNAL_TOKEN_FILE: secretFile('token', TOKEN) });
    expect(both).toThrow(ConfigError);
    expect(both).toThrow('INTERNAL_TOKEN: is set both directly and through INTERNAL_TOKEN_FILE; set one of them');
    const missing = join(folder, 'not-there');
    const unreadable = () => parseConfig(Settings, { INTERNAL_TOKEN_FILE: missing });
    expect(unreadable).toThrow(`INTERNAL_TOKEN_FILE: cannot read ${missing} (ENOENT)`);
    try {
      both();
    } catch (error) {
      expect((error as Error).message).not.toContain(TOKEN);
    }
  });

  it('leaves <NAME>_FILE of a name that is no setting alone, and an empty one means unset', () => {
    const config = parseConfig(Settings, { INTERNAL_TOKEN: TOKEN, UNKNOWN_FILE: join(folder, 'not-there'), SMTP_URL_FILE: '' });
    expect(config.INTERNAL_TOKEN).toBe(TOKEN);
    expect(config.SMTP_URL).toBeUndefined();
  });
});
