/**
 * Where the service's log lines go: standard output, the lines of one turn of the event loop in
 * one write (issue 25, docs/performance.md "the fourth session"). Pino's default destination
 * writes every line with its own synchronous `write` system call: one per request for the access
 * line alone, and on a machine whose disk is busy that call is where the process waits (up to 8 %
 * of a bet's samples in a profile). Here a line is kept until the current turn's I/O callbacks have
 * run (`setImmediate`), then that turn's lines are written together, synchronously, in the order
 * they were logged, by pino's own destination (sonic-boom: partial writes and EAGAIN handled).
 * What is lost on a SIGKILL is at most the lines of the turn in progress — the requests they
 * describe were answered within the same millisecond; a normal exit, `process.exit` and a crash
 * (the `exit` event) write what is kept first.
 */
import pino from 'pino';

export interface LogDestination {
  write(line: string): void;
  /** Writes the lines kept so far (synchronously). */
  flush(): void;
}

export function turnBatchedDestination(fd = 1): LogDestination {
  const sink = pino.destination({ dest: fd, sync: true });
  let kept = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (kept === '') return;
    const text = kept;
    kept = '';
    sink.write(text);
  };
  process.on('exit', flush);
  return {
    write(line) {
      kept += line;
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}

let stdout: LogDestination | undefined;

/** The process's one destination on standard output (made on first use). */
export const stdoutDestination = (): LogDestination => (stdout ??= turnBatchedDestination(1));
