import { ErrorCode, McpError, RELATED_TASK_META_KEY } from '@modelcontextprotocol/sdk/types.js';
import type { ToolContext } from '@wardrik/core';

/** A call whose `tools/call` is pending on a connection: whom a server's request during it asks. */
export interface CallInFlight {
  /** Whom its requests ask: the call's context, or for a task followed after its call answered, the run's. */
  readonly context: Pick<ToolContext, 'requestInput' | 'sample'>;
  /** Aborted when the call stops (cancelled, timed out, answered). */
  readonly signal: AbortSignal;
  /** Stops the call's timeout while a request for it is answered; the function returned resumes it. */
  readonly pauseTimeout?: () => () => void;
  /** The MCP task the call created (a task-augmented `tools/call`), once the server said so. */
  taskId?: string;
}

/**
 * The calls in flight on one connection, to tell which one a server's request (elicitation,
 * sampling) belongs to: the one whose task the request names (`_meta` `related-task`), else the
 * only one in flight. JSON-RPC does not say which pending request a server's request is about.
 */
export class CallsInFlight {
  readonly #calls = new Set<CallInFlight>();

  /** Keeps `call` while its `tools/call` is pending: call the function returned once it is over. */
  add(call: CallInFlight): () => void {
    this.#calls.add(call);
    return () => {
      this.#calls.delete(call);
    };
  }

  get size(): number {
    return this.#calls.size;
  }

  /**
   * The call that `method` (a server's request, with its `_meta`) asks on behalf of. Throws an
   * `McpError` (the server's answer) when no call is in flight, when the request names a task
   * no call in flight created, or when several are in flight and nothing says which.
   */
  asker(method: string, meta: Readonly<Record<string, unknown>> | undefined): CallInFlight {
    const related = meta?.[RELATED_TASK_META_KEY] as { taskId?: unknown } | undefined;
    const taskId = typeof related?.taskId === 'string' ? related.taskId : undefined;
    if (taskId !== undefined) {
      for (const call of this.#calls) if (call.taskId === taskId) return call;
      throw new McpError(
        ErrorCode.InvalidRequest,
        `Wardrik answers ${method} only during a tools/call, and no call in flight on this connection created MCP task ${taskId} (a task's requests are not answered)`,
      );
    }
    const count = this.#calls.size;
    if (count === 1) {
      const [only] = this.#calls;
      if (only !== undefined) return only;
    }
    if (count === 0) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `Wardrik answers ${method} only during a tools/call, and no call is in flight on this connection`,
      );
    }
    throw new McpError(
      ErrorCode.InvalidRequest,
      `Wardrik cannot tell which call asks: ${count} calls are in flight on this connection and the ${method} request names no task of one of them (_meta["${RELATED_TASK_META_KEY}"])`,
    );
  }
}
