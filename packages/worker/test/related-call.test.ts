/*
 * A server's elicitation/create and sampling/createMessage go to Wardrik naming the tools/call they
 * are for (`_meta['wardrik/related-call']`, from the MCP SDK's relatedRequestId); one related to no
 * call is answered here with a clear error. Other messages pass as they are.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { RELATED_CALL_META } from '../src/index.js';
import { relateQuestion } from '../src/related-call.js';

const elicit = (params: Record<string, unknown> = {}): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id: 3,
  method: 'elicitation/create',
  params: { message: 'Which account?', requestedSchema: { type: 'object', properties: {} }, ...params },
});

describe('relateQuestion', () => {
  it('names the call from relatedRequestId, keeping the rest of _meta', () => {
    const ready = relateQuestion(elicit({ _meta: { trace: 't' } }), 7);
    expect(ready).toEqual({
      type: 'send',
      message: {
        jsonrpc: '2.0',
        id: 3,
        method: 'elicitation/create',
        params: {
          message: 'Which account?',
          requestedSchema: { type: 'object', properties: {} },
          _meta: { trace: 't', [RELATED_CALL_META]: 7 },
        },
      },
    });
    const sampling: JSONRPCMessage = { jsonrpc: '2.0', id: 4, method: 'sampling/createMessage', params: {} };
    expect(relateQuestion(sampling, 'c1')).toMatchObject({
      type: 'send',
      message: { params: { _meta: { [RELATED_CALL_META]: 'c1' } } },
    });
  });

  it('keeps the call a server named itself (a bridged server may)', () => {
    expect(relateQuestion(elicit({ _meta: { [RELATED_CALL_META]: 12 } }), undefined)).toMatchObject({
      type: 'send',
      message: { params: { _meta: { [RELATED_CALL_META]: 12 } } },
    });
  });

  it('refuses a question related to no call, with an error saying how to relate it', () => {
    const ready = relateQuestion(elicit(), undefined);
    expect(ready.type).toBe('refused');
    const answer = (ready as { answer: { id: unknown; error: { code: number; message: string } } }).answer;
    expect(answer.id).toBe(3);
    expect(answer.error.code).toBe(-32601);
    expect(answer.error.message).toContain('elicitation/create: Wardrik answers it only during a tools/call');
    expect(answer.error.message).toContain('relatedRequestId: extra.requestId');
  });

  it('passes other messages as they are, related or not', () => {
    const progress: JSONRPCMessage = {
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 1, progress: 1 },
    };
    const result: JSONRPCMessage = { jsonrpc: '2.0', id: 1, result: { content: [] } };
    const ping: JSONRPCMessage = { jsonrpc: '2.0', id: 9, method: 'ping' };
    for (const message of [progress, result, ping]) {
      expect(relateQuestion(message, 1)).toEqual({ type: 'send', message });
      expect(relateQuestion(message, undefined)).toEqual({ type: 'send', message });
    }
  });
});
