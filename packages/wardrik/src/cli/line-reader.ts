import { createInterface, type Interface } from 'node:readline';

/** How to read lines. */
export interface LineReaderOptions {
  readonly input: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  /** Where prompts go; none: no prompts are shown (piped input). */
  readonly output?: NodeJS.WritableStream;
  /** Called on Ctrl-C typed at a terminal (which then sends no SIGINT to the process). */
  readonly onInterrupt?: () => void;
}

/**
 * Lines typed or piped in, one at a time and in order, each read when the caller asks for it:
 * lines that arrive earlier wait their turn (piped input, or typing ahead while a run goes on).
 * On a terminal, editing and history are readline's. At the end of the input (Ctrl-D, EOF) or
 * after `interrupt()`, `read` resolves to undefined.
 *
 * @example
 * ```ts
 * const reader = new LineReader({ input: process.stdin, output: process.stdout })
 * for (let line = await reader.read('you> '); line !== undefined; line = await reader.read('you> ')) send(line)
 * ```
 */
export class LineReader {
  readonly #interface: Interface;
  readonly #prompts: boolean;
  /** Whether what is typed is echoed (by the terminal): if not, a prompt is followed by its line. */
  readonly #echoed: boolean;
  readonly #output: NodeJS.WritableStream | undefined;
  readonly #queued: string[] = [];
  #waiting: ((line: string | undefined) => void) | undefined;
  #ended = false;

  constructor(options: LineReaderOptions) {
    const terminal = options.input.isTTY === true && options.output !== undefined;
    this.#output = options.output;
    this.#prompts = options.output !== undefined;
    this.#echoed = terminal;
    this.#interface = createInterface({
      input: options.input,
      ...(options.output ? { output: options.output } : {}),
      terminal,
      historySize: terminal ? 100 : 0,
    });
    this.#interface.on('line', (line) => {
      if (this.#waiting) this.#resolveWaiting(line);
      else if (!this.#ended) this.#queued.push(line);
    });
    // The end of the input: lines read before it are still given, then undefined.
    this.#interface.on('close', () => {
      this.#ended = true;
      this.#resolveWaiting(undefined);
    });
    const onInterrupt = options.onInterrupt;
    if (onInterrupt) this.#interface.on('SIGINT', onInterrupt);
  }

  /** The next line (shown after `prompt` when prompts are shown), or undefined at the end. */
  read(prompt = ''): Promise<string | undefined> {
    const queued = this.#queued.shift();
    if (queued !== undefined) {
      if (this.#prompts && prompt !== '') this.#output?.write(`${prompt}${this.#echoed ? '' : queued}\n`);
      return Promise.resolve(queued);
    }
    if (this.#ended) return Promise.resolve(undefined);
    if (this.#prompts) {
      this.#interface.setPrompt(prompt);
      this.#interface.prompt();
    }
    return new Promise((resolve) => {
      this.#waiting = (line) => {
        if (line !== undefined && this.#prompts && !this.#echoed) this.#output?.write(`${line}\n`);
        resolve(line);
      };
    });
  }

  /** Ends a pending `read` (with undefined) and every later one: nothing more is read. */
  interrupt(): void {
    this.#end();
  }

  /** Stops reading the input. */
  close(): void {
    this.#end();
    this.#interface.close();
  }

  #end(): void {
    this.#ended = true;
    this.#queued.length = 0;
    this.#resolveWaiting(undefined);
  }

  #resolveWaiting(line: string | undefined): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.(line);
  }
}
