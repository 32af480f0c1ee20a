// Renders an .eml as a reader would see it: its headers above its HTML part, printed by the same
// Chromium documents uses, to a PNG. `node tests/support/render-eml.ts <file.eml> <out.png>`.
import { readFile } from 'node:fs/promises';
import { simpleParser } from 'mailparser';
import { chromium } from 'playwright-core';
import { resolveChromium } from '../../services/documents/src/modules/rendering/chromium-executable.ts';

const [emlPath, pngPath] = process.argv.slice(2);
if (!emlPath || !pngPath) throw new Error('usage: render-eml.ts <file.eml> <out.png>');
const mail = await simpleParser(await readFile(emlPath));
const found = await resolveChromium(process.env.CHROMIUM_PATH);
if (!found.found) throw new Error(`no Chromium: ${found.reason}`);
const escape = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
const addresses = (value: typeof mail.to) => (Array.isArray(value) ? value : value ? [value] : []).map((each) => each.text).join(', ');
const header = `<div style="font:13px/1.5 sans-serif;padding:12px 16px;border-bottom:1px solid #ccc;background:#fafafa">
<b>From:</b> ${escape(mail.from?.text ?? '')}<br><b>To:</b> ${escape(addresses(mail.to))}<br>
<b>Reply-To:</b> ${escape(mail.replyTo?.text ?? '')}<br><b>Subject:</b> ${escape(mail.subject ?? '')}<br>
<b>Attachments:</b> ${escape(mail.attachments.map((each) => `${each.filename} (${each.size} bytes)`).join(', '))}</div>`;
const browser = await chromium.launch({ executablePath: found.executablePath, args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: 720, height: 900 } });
await page.setContent(`${header}${mail.html || `<pre>${escape(mail.text ?? '')}</pre>`}`);
await page.screenshot({ path: pngPath, fullPage: true });
await browser.close();
console.log(`wrote ${pngPath}`);
