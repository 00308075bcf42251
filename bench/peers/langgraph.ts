// LangGraph.js running the peers workload (bench/peers.ts), in a process of its own:
//   node --expose-gc --import tsx bench/peers/langgraph.ts [normal|full]
// The agent graph LangGraph documents (a StateGraph over MessagesAnnotation: a model node, a
// ToolNode with the `add` tool, toolsCondition between them), a scripted chat model, and the SQLite
// checkpointer (@langchain/langgraph-checkpoint-sqlite) with its default durability ("async": a
// step's checkpoint is written while the next step runs). Each run is a new thread. `normal` keeps
// the checkpointer's own connection settings (WAL; better-sqlite3 builds SQLite with WAL
// synchronous=NORMAL); `full` sets synchronous=FULL on that connection, as Wardrik's default.
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { tool } from '@langchain/core/tools';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { z } from 'zod';
import { measureAndReport, temporaryPath } from './harness.js';
import { addTool, inputFor, nextTurn, resultNumber } from './workload.js';

const synchronous = process.argv[2] === 'full' ? 'full' : 'normal';

class ScriptedChatModel extends BaseChatModel {
  _llmType(): string {
    return 'scripted';
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const first = messages[0];
    const last = messages[messages.length - 1];
    const turn = nextTurn(
      first?.type === 'human' && typeof first.content === 'string' ? first.content : '',
      last?.type === 'tool' ? resultNumber(last.content) : undefined,
    );
    const message =
      turn.type === 'call'
        ? new AIMessage({
            content: '',
            tool_calls: [{ id: turn.callId, name: addTool.name, args: turn.arguments, type: 'tool_call' }],
          })
        : new AIMessage({ content: turn.text });
    const text = typeof message.content === 'string' ? message.content : '';
    return {
      generations: [{ text, message }],
      llmOutput: { tokenUsage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 } },
    };
  }
}

const model = new ScriptedChatModel({});
const add = tool(async (input) => addTool.run(input), {
  name: addTool.name,
  description: addTool.description,
  schema: z.object({ a: z.number(), b: z.number() }),
});

await measureAndReport(async () => {
  const checkpointer = SqliteSaver.fromConnString(temporaryPath('langgraph.db'));
  if (synchronous === 'full') checkpointer.db.pragma('synchronous = FULL');
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('model', async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addNode('tools', new ToolNode([add]))
    .addEdge(START, 'model')
    .addConditionalEdges('model', toolsCondition, ['tools', END])
    .addEdge('tools', 'model')
    .compile({ checkpointer });
  let thread = 0;
  return {
    async run(calls) {
      const state = await graph.invoke(
        { messages: [{ role: 'user', content: inputFor(calls) }] },
        // Each call is two supersteps (model, tools), and the final answer one more.
        { configurable: { thread_id: `thread-${++thread}` }, recursionLimit: 2 * calls + 3 },
      );
      const last = state.messages[state.messages.length - 1];
      return typeof last?.content === 'string' ? last.content : '';
    },
    async close() {
      checkpointer.db.close();
    },
    // Read once the saver has set its database up (on first use): WAL mode changes the default.
    get notes() {
      const mode = checkpointer.db.pragma('synchronous', { simple: true });
      const journal = checkpointer.db.pragma('journal_mode', { simple: true });
      return `SqliteSaver, journal_mode=${journal}, synchronous=${mode === 2 ? 'FULL' : mode === 1 ? 'NORMAL' : mode}`;
    },
  };
});
