/**
 * A TCP port of 127.0.0.1 that nothing listens on at the time of asking (the OS picks it), for the
 * throw-away services of scripts/test-services.mjs and the server scripts/image-check.mjs starts.
 */
import { createServer } from 'node:net';

export const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
