/*
 * A server's question for one of its MCP tasks (`_meta['io.modelcontextprotocol/related-task']`,
 * set by the MCP SDK for `{ relatedTask }`) goes to Wardrik as it is when it comes on Wardrik's
 * `tasks/result` or related to no request: Wardrik finds whom to ask by the task. Related to
 * another request (a call), it is named as that call's question, as before.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { RELATED_CALL_META } from '../src/index.js';
import { RELATED_TASK_META, relatedTaskId, relateQuestion } from '../src/related-call.js';

const forTask = (taskId: unknown, method = 'elicitation/create'): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id: 4,
  method,
  params: {
    message: 'Aisle or window?',
    requestedSchema: { type: 'object', properties: {} },
    _meta: { [RELATED_TASK_META]: { taskId } },
  },
});

describe('relateQuestion for a task', () => {
  it("sends a task's question on Wardrik's tasks/result as it is, keeping the related task", () => {
    const message = forTask('task-1');
    const onTaskResult = (id: string | number) => id === 9;
    expect(relateQuestion(message, 9, onTaskResult)).toEqual({ type: 'send', message });
    expect(relateQuestion(forTask('task-1', 'sampling/createMessage'), 9, onTaskResult)).toMatchObject({
      type: 'send',
      message: { params: { _meta: { [RELATED_TASK_META]: { taskId: 'task-1' } } } },
    });
  });

  it("sends a task's question related to no request as it is (a bridged server's, which the SDK queued)", () => {
    const message = forTask('task-1');
    expect(relateQuestion(message, undefined)).toEqual({ type: 'send', message });
  });

  it('names the call of a task question related to a request that is not a tasks/result', () => {
    expect(relateQuestion(forTask('task-1'), 7, () => false)).toMatchObject({
      type: 'send',
      message: { params: { _meta: { [RELATED_TASK_META]: { taskId: 'task-1' }, [RELATED_CALL_META]: 7 } } },
    });
  });

  it('refuses a question whose related task is malformed and which relates to no call', () => {
    for (const taskId of ['', 12, undefined]) {
      const ready = relateQuestion(forTask(taskId), undefined);
      expect(ready.type).toBe('refused');
      expect(JSON.stringify(ready)).toContain('for a task, send it with { relatedTask: { taskId } }');
    }
  });

  it('relatedTaskId reads the task a _meta names, if it names one', () => {
    expect(relatedTaskId({ [RELATED_TASK_META]: { taskId: 't' } })).toBe('t');
    expect(relatedTaskId({ [RELATED_TASK_META]: 't' })).toBeUndefined();
    expect(relatedTaskId({})).toBeUndefined();
  });
});
