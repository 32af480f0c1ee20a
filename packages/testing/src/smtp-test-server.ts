import { appendFileSync, readFileSync, existsSync } from 'node:fs';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';

/** One message the server accepted: its envelope (what SMTP delivered to) and the parsed message. */
export interface ReceivedMail {
  messageId: string | null;
  envelopeFrom: string;
  envelopeTo: string[];
  raw: string;
  parsed: ParsedMail;
  receivedAt: string;
}

/** A line of the persisted log: what the fault test reconciles against after restarts. */
export interface ReceivedLogLine {
  message_id: string | null;
  to: string[];
  subject: string | null;
  size: number;
  received_at: string;
}

/**
 * How the server answers a recipient, chosen by its local part, so one server plays every kind of
 * mail host:
 * - `refuse…@`: 550 to RCPT TO (permanent);
 * - `later<n>…@`: 451 to RCPT TO the first n times that address is tried, then accepted (temporary);
 * - `drop<n>…@`: the connection is cut during DATA the first n times, then accepted;
 * - anything else: accepted.
 */
export const behaviourOf = (address: string): { kind: 'refuse' } | { kind: 'later' | 'drop'; times: number } | { kind: 'accept' } => {
  const local = address.split('@')[0]!.toLowerCase();
  if (local.startsWith('refuse')) return { kind: 'refuse' };
  const match = /^(later|drop)(\d+)/.exec(local);
  if (match) return { kind: match[1] as 'later' | 'drop', times: Number(match[2]) };
  return { kind: 'accept' };
};

export interface SmtpTestServerOptions {
  /** Every accepted message is appended here as one JSON line, so the log survives the server's restarts. */
  logFile?: string;
  /** Refuses every recipient with 451 while true (a server that is up but not taking mail). */
  deferAll?: boolean;
}

/** A real SMTP server (the `smtp-server` package) on loopback that refuses on request. */
export class SmtpTestServer {
  readonly received: ReceivedMail[] = [];
  readonly #tries = new Map<string, number>();
  readonly #server: SMTPServer;
  readonly #options: SmtpTestServerOptions;
  port = 0;

  constructor(options: SmtpTestServerOptions = {}) {
    this.#options = options;
    this.#server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      size: 30 * 1024 * 1024,
      onRcptTo: (address, session, callback) => {
        const behaviour = behaviourOf(address.address);
        const tried = this.#tried(`rcpt:${address.address}`);
        if (this.#options.deferAll) return callback(Object.assign(new Error('4.3.2 Not taking mail right now'), { responseCode: 451 }));
        if (behaviour.kind === 'refuse') return callback(Object.assign(new Error('5.1.1 No such user here'), { responseCode: 550 }));
        if (behaviour.kind === 'later' && tried <= behaviour.times) return callback(Object.assign(new Error('4.2.1 Mailbox busy, try later'), { responseCode: 451 }));
        callback();
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const dropper = session.envelope.rcptTo.map((rcpt) => ({ rcpt: rcpt.address, behaviour: behaviourOf(rcpt.address) })).find(({ behaviour }) => behaviour.kind === 'drop');
          if (dropper && 'times' in dropper.behaviour && this.#tried(`data:${dropper.rcpt}`) <= dropper.behaviour.times) {
            this.#dropConnectionOf(session);
            return;
          }
          // Logged, then answered, then parsed: the server takes no longer to say 250 than a real one would.
          const raw = Buffer.concat(chunks);
          // The session's envelope is reset once answered: read it first.
          const envelope = { from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((rcpt) => rcpt.address) };
          this.#log(raw, envelope.to);
          callback();
          void this.#keep(raw, envelope);
        });
      },
    });
  }

  #tried(key: string): number {
    const count = (this.#tries.get(key) ?? 0) + 1;
    this.#tries.set(key, count);
    return count;
  }

  #dropConnectionOf(session: SMTPServerSession): void {
    const connections = (this.#server as unknown as { connections: Set<{ id: string; _socket: { destroy: () => void } }> }).connections;
    for (const connection of connections) if (connection.id === session.id) connection._socket.destroy();
  }

  /** Appended before the 250 answer: a message the client sees accepted is always in the log. */
  #log(raw: Buffer, to: string[]): void {
    if (!this.#options.logFile) return;
    const head = raw.subarray(0, raw.indexOf('\r\n\r\n') + 1 || raw.length).toString('utf8');
    const header = (name: string) => new RegExp(`^${name}:[ \\t]*(.*(?:\\r\\n[ \\t].*)*)`, 'im').exec(head)?.[1]?.replace(/\r\n[ \t]+/g, ' ').trim() ?? null;
    const line: ReceivedLogLine = {
      message_id: header('Message-ID'),
      to,
      subject: header('Subject'),
      size: raw.length,
      received_at: new Date().toISOString(),
    };
    appendFileSync(this.#options.logFile, `${JSON.stringify(line)}\n`);
  }

  /** Parsed for the tests that read what arrived (in-process); a server with a log file keeps only the log. */
  async #keep(raw: Buffer, envelope: { from: string; to: string[] }): Promise<void> {
    if (this.#options.logFile) return;
    const parsed = await simpleParser(raw);
    this.received.push({
      messageId: parsed.messageId ?? null,
      envelopeFrom: envelope.from,
      envelopeTo: envelope.to,
      raw: raw.toString('utf8'),
      parsed,
      receivedAt: new Date().toISOString(),
    });
  }

  async listen(port = 0): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, '127.0.0.1', () => resolve());
    });
    const address = (this.#server as unknown as { server: { address: () => { port: number } } }).server.address();
    this.port = address.port;
    return this.port;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** Waits until `count` messages matching `match` arrived. */
  async waitFor(match: (mail: ReceivedMail) => boolean, count = 1, timeoutMs = 30_000): Promise<ReceivedMail[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.filter(match);
      if (found.length >= count) return found;
      if (Date.now() > deadline) throw new Error(`expected ${count} messages, got ${found.length}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

/** The persisted log of a server started with `logFile`, across its restarts. */
export const readReceivedLog = (file: string): ReceivedLogLine[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as ReceivedLogLine)
    : [];
