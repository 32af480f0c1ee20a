// The SMTP test server as a process of its own, so a fault test can SIGKILL it and start it again
// on the same port: `node packages/testing/src/smtp-server-main.ts <port> <log file>`. Prints
// `listening <port>` once it accepts connections.
import { SmtpTestServer } from './smtp-test-server.ts';

const [portArgument = '0', logFile] = process.argv.slice(2);
const server = new SmtpTestServer(logFile ? { logFile } : {});
const port = await server.listen(Number(portArgument));
console.log(`listening ${port}`);
