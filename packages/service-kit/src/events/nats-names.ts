/** What NATS_PREFIX may hold: every character must be valid in a subject token, a stream name and a consumer name. */
export const NATS_PREFIX_PATTERN = /^[A-Za-z0-9_-]*$/;

/**
 * The names the bus uses on a NATS server. Stream names, durable consumer names and subjects are
 * global on a server, so two deployments sharing one (staging beside test, two developers) would
 * otherwise read and ack each other's events. A prefix keeps them apart; the empty prefix keeps
 * the names unchanged, so a deployment that had none keeps its streams and consumers.
 */
export interface NatsNames {
  /** The subject an event type (or a subject filter) travels on. */
  subject: (eventType: string) => string;
  /** The event type a subject on the wire carries: the inverse of `subject`. */
  eventType: (subject: string) => string;
  stream: (name: string) => string;
  durable: (name: string) => string;
}

export const natsNames = (prefix: string): NatsNames => {
  if (!NATS_PREFIX_PATTERN.test(prefix)) throw new Error(`NATS prefix ${JSON.stringify(prefix)} may hold only letters, digits, - and _`);
  if (prefix === '') return { subject: (type) => type, eventType: (subject) => subject, stream: (name) => name, durable: (name) => name };
  const subjectPrefix = `${prefix}.`;
  return {
    subject: (type) => `${subjectPrefix}${type}`,
    eventType: (subject) => (subject.startsWith(subjectPrefix) ? subject.slice(subjectPrefix.length) : subject),
    stream: (name) => `${prefix}_${name}`,
    durable: (name) => `${prefix}_${name}`,
  };
};
